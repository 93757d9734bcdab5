"""What a repository grade no longer repeats per run (issue 41: k=1 within 1.3x a bare test run), each cut
beside the behaviour it must keep: the same tripwire plans, the same parsed report, the same Go cache entries."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from loop.kinds.repo import pysyntax
from loop.kinds.repo import tripwire as T

COMMAND = ("python", "-m", "pytest", "--junitxml={report}", "{tests}")
HOST = "tests/test_x.py"
SOURCE = '''from x import f


def test_one():
    assert f(1) == 2


class TestMore:
    def test_two(self):
        values = [1, 2]
        assert f(values[0]) == 2

    def test_three(self):
        assert f(3) == 4


def test_four():
    assert f(4) == 5
'''


def _tree(tmp_path: Path, text: str = SOURCE) -> Path:
    (tmp_path / "tests").mkdir(parents=True, exist_ok=True)
    (tmp_path / HOST).write_text(text)
    return tmp_path


def _allowed(tree: Path) -> dict[str, T.Safe]:
    points = T.points_of("pytest", (tree / HOST).read_text())
    return {HOST: T.Safe(frozenset(p.key for p in points))}


def test_a_host_file_is_parsed_once_per_text(tmp_path, monkeypatch):
    """Tripwire planning read a host file's syntax tree in four places per run (points, copies, twins, the
    one-line share): ~27 ms of a Python grade's 37 ms planning. Now once per text, and never for a host file
    whose text an earlier run already planned (every host the run does not seal)."""
    tree = _tree(tmp_path, SOURCE.replace("f(4) == 5", f"f(4) == {random.randrange(10**9)}"))  # a text never seen
    parsed = []
    real = pysyntax.parse
    monkeypatch.setattr(pysyntax, "parse", lambda source: parsed.append(source) or real(source))
    allowed = _allowed(tree)
    assert T.plan_all(COMMAND, tree, allowed, ()) is not None
    assert len(parsed) == 1
    assert T.plan_all(COMMAND, tree, allowed, ()) is not None
    assert len(parsed) == 1


def test_a_host_file_without_copies_has_one_must_fail(tmp_path):
    """Each must-fail costs the run pytest's formatting of its failure (~1.5 ms in the ledger task's six host
    files, where the seals leave nothing to copy on most draws): an aggregate one only where the file has no
    copy of a real test to fail, one per file, not two. Copies still come first, up to three."""
    tree = _tree(tmp_path)
    points = frozenset(p.key for p in T.points_of("pytest", SOURCE))
    for seed in range(20):
        bare = T.plan_all(COMMAND, tree, {HOST: T.Safe(points, copies=frozenset())}, (), random.Random(seed))
        assert sorted(w.expect for w in bare.wires) == ["fail", "same"]
        assert next(w for w in bare.wires if w.expect == "fail").source is None  # an aggregate
        copied = T.plan_all(COMMAND, tree, {HOST: T.Safe(points)}, (), random.Random(seed))
        fails = [w for w in copied.wires if w.expect == "fail"]
        assert 1 <= len(fails) <= 3 and all(w.source for w in fails)  # copies only: no aggregate beside them


def test_a_cached_syntax_tree_plans_what_a_fresh_one_does(tmp_path):
    """The cached tree is shared between runs and threads: planning never changes it, so a plan from it is a
    plan from a fresh parse (same rng, same tripwires, same text)."""
    tree = _tree(tmp_path)
    allowed = _allowed(tree)
    first = T.plan_all(COMMAND, tree, allowed, (), random.Random(7))
    for _ in range(3):  # planned again and again from the cache
        T.plan_all(COMMAND, tree, allowed, ())
    T._module.cache_clear()
    T._one_line_share.cache_clear()
    fresh = T.plan_all(COMMAND, tree, allowed, (), random.Random(7))
    assert first == fresh
    assert [w.name for w in first.wires] and first.plans[0].text != SOURCE



NESTED = """
import sys
f = lambda: 1
if sys:
    def test_if(): pass
else:
    def test_else():
        x = 1
        return x
try:
    def test_try(): pass
except ValueError:
    def test_except(): pass
else:
    def test_try_else(): pass
finally:
    async def test_finally(): pass
for i in []:
    pass
else:
    def test_for_else(): pass
with open(__file__):
    class TestIn:
        def test_method(self):
            def test_inner(): pass
match 1:
    case 1:
        def test_case(): pass
"""


def test_the_one_line_share_finds_the_tests_a_full_walk_does():
    """_one_line_share visits statements only (a def is one), not every expression node: the same tests as
    ast.walk, wherever they nest."""
    import ast

    module = ast.parse(NESTED)
    walked = sorted(n.name for n in ast.walk(module) if T._is_test(n, True))
    assert walked == sorted(n.name for n in T._statements(module) if T._is_test(n, True))
    assert len(walked) == 10
    assert T._one_line_share(NESTED) == 9 / 10

# pytest's options: none of loop's in the test command's environment -------------------------------------------
@pytest.mark.sandbox
def test_no_pytest_options_of_loops_reach_the_test_command(tmp_path, monkeypatch):
    """PYTEST_ADDOPTS=--tb=line once cut ~40 ms of a ledger run, but the variable reaches the project's own tests
    too: under it, the tripwire probes of pallets__flask-4045 (a SWE-bench Lite row, bench_swebench_history.py)
    saw base-tree outcomes change and the gold patch was `inconclusive` in 5 of 5 grades. The test command gets
    the task's environment only."""
    from loop import tasks
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import testrun
    from loop.sandbox import SandboxConfig
    from conftest import ROOT

    task = tasks.load_folder(ROOT / "harness" / "tasks" / "repo_ledger_py")
    env = repo_kind._environment(task.spec, SandboxConfig())
    seen = []
    real = testrun.run
    monkeypatch.setattr(testrun, "run", lambda cfg, argv, **kw: seen.append((argv, kw["env"])) or real(cfg, argv, **kw))
    tree = tmp_path / "tree"
    shutil.copytree(task.spec.tree, tree)
    repo_kind._stage_hidden(task.spec, tree)
    outcomes = testrun.run_tests(task, SandboxConfig(), env, tree, 0, None).outcomes
    assert outcomes and len(seen) == 1 and "PYTEST_ADDOPTS" not in seen[0][1]
    # nor on its command line: `--tb=native` there (2026-12-06, ~4 ms a ledger run) changed the base tree's
    # outcomes of three flask tests beside the tripwires (pallets__flask-4045 inconclusive in 20 of 20 grades)
    assert [a for a in seen[0][0] if a.startswith("--tb")] == []
    failed = [o for o in outcomes.values() if o.status != "pass"]
    assert failed and all("assert" in o.message for o in failed), failed


# Go: the sealed-check helper's imports in the warm build cache ---------------------------------------------
@pytest.fixture
def empty_cache(monkeypatch) -> Path:
    """An empty environment cache the sandbox's uid can reach (see test_repo_js_go's `cache`)."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="loop-test-cache-"))
    root.chmod(0o755)
    monkeypatch.setenv("LOOP_ENV_CACHE", str(root / "envs"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.sandbox
def test_a_sealed_go_run_vets_no_dependency(empty_cache):
    """`go test` vets a test package's imports (their facts) before the package: a cache warmed on the base tree
    alone lacked encoding/hex, which only the sealed-check helper imports, so every sealed run started one more
    vet process. The warm cache now holds them: the graded run vets its own package and nothing else."""
    from dataclasses import replace

    from conftest import ROOT
    from loop import tasks
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import reference
    from loop.kinds.repo import seal as repo_seal
    from loop.kinds.repo import testrun
    from loop.sandbox import SandboxConfig

    assert "encoding/hex" in repo_seal.js_go.GO_IMPORTS
    task = tasks.load_folder(ROOT / "harness" / "tasks" / "repo_semver_go")
    env = repo_kind._environment(task.spec, SandboxConfig())
    verbose = replace(task, spec=replace(task.spec, command=("go", "test", "-x", "-json", "./...")))
    res = testrun.run_tests(verbose, SandboxConfig(), env, reference._gold_tree(task, SandboxConfig()), 0, None,
                            seals=repo_seal.EVERY)
    assert res.seals and res.seals.seals, "the run had no sealed check"
    vets = [line for line in res.stderr.splitlines() if "/vet " in line]
    assert len(vets) == 1 and "-unsafeptr=false" not in vets[0], vets


# git apply: one process for a patch that applies -----------------------------------------------------------
@pytest.mark.sandbox
def test_a_patch_that_applies_runs_git_once(tmp_path, monkeypatch):
    """`git apply` is all or nothing, so the --check pass before it was a second git process in every grade;
    a patch that does not apply still gets its --reject run and its rejected hunks quoted."""
    from loop.kinds.repo import patch as repo_patch
    from loop.sandbox import clean_env

    shim = tmp_path / "bin"
    shim.mkdir()
    calls = tmp_path / "calls"
    (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> {calls}\nexec /usr/bin/git "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setattr(repo_patch, "clean_env", lambda *a: {**clean_env(*a), "PATH": f"{shim}:/usr/bin:/bin"})

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("one\ntwo\n")
    (tree / "b.txt").write_text("three\n")
    good = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
    bad = "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-not here\n+x\n"
    assert repo_patch.apply(good, tree, repo_patch.TRUSTED) is None
    assert (tree / "a.txt").read_text() == "one\nTWO\n"
    assert len(calls.read_text().splitlines()) == 1

    calls.unlink()
    (tree / "a.txt").write_text("one\ntwo\n")
    rejected = repo_patch.apply(good + bad, tree, repo_patch.TRUSTED)
    assert rejected is not None and "b.txt.rej" in rejected and "not here" in rejected
    assert [line.split()[-2] for line in calls.read_text().splitlines()] == ["-p1", "--reject"]


# pytest started before the tree is ready ------------------------------------------------------------------
STARTED_AS_WRITTEN = '''import os
import sys

import pytest


def test_started_as_python_minus_m():
    main = sys.modules["__main__"]
    assert sys.path[0] == os.getcwd() == "/repo", sys.path
    assert sys.argv[0].endswith("/pytest/__main__.py") and "--junitxml=/out/report.xml" in sys.argv, sys.argv
    assert main.__spec__.name == "pytest.__main__"
    assert {n for n in vars(main) if not n.startswith("__")} <= {"annotations", "pytest"}, sorted(vars(main))


@pytest.mark.parametrize("what", ["path", "argv", "orig", "main", "flags", "cwd"])
def test_what_it_saw(what):  # fails on purpose: its message, what the test process saw, is compared
    seen = {"path": sys.path, "argv": sys.argv, "orig": sys.orig_argv, "main": sorted(vars(sys.modules["__main__"])),
            "flags": sys.flags, "cwd": os.getcwd()}
    assert not what, repr(seen[what])


def test_hidden_tests_are_read_only():
    with pytest.raises(OSError) as info:
        open("/repo/tests/test_tax_rounding.py", "a")
    assert info.value.errno == 30


def test_shadowing_module_of_the_tree_is_the_one_imported():
    import textwrap
    assert getattr(textwrap, "FROM_THE_TREE", False) == os.path.exists("/repo/textwrap.py")
'''

# stands in for the standard library's textwrap (which pytest imports) and says it was the one imported
TEXTWRAP = '''import importlib.util, os, sysconfig
_spec = importlib.util.spec_from_file_location("_textwrap", os.path.join(sysconfig.get_paths()["stdlib"], "textwrap.py"))
_real = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_real)
globals().update({k: v for k, v in vars(_real).items() if not k.startswith("__")})
FROM_THE_TREE = True
'''


def _started_task(tmp_path: Path, shadow: bool = False):
    from loop import tasks
    from conftest import ROOT

    folder = tmp_path / "repo_ledger_py"
    shutil.copytree(ROOT / "harness" / "tasks" / "repo_ledger_py", folder)
    (folder / "repo" / "tests" / "test_started.py").write_text(STARTED_AS_WRITTEN)
    if shadow:
        (folder / "repo" / "textwrap.py").write_text(TEXTWRAP)
    return tasks.load_folder(folder)


@pytest.mark.sandbox
@pytest.mark.parametrize("shadow", [False, True], ids=["as written", "a tree module shadows an early import"])
def test_pytest_started_early_runs_the_command_as_written(tmp_path, monkeypatch, shadow):
    """The first repeat's sandbox starts (interpreter and pytest imported) while loop applies the patch and plants
    its tripwires, ~half of a small suite's run off the critical path; what the tests see is `python -m pytest`
    as written: sys.argv, sys.path, __main__, read-only hidden tests, and a module of the tree that shadows one
    imported before the tree was there (the command is then exec'd afresh). Outcomes equal a run started late."""
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import reference, testrun
    from loop.sandbox import SandboxConfig

    task, cfg = _started_task(tmp_path, shadow), SandboxConfig()
    env, tree = repo_kind._environment(task.spec, cfg), reference._base_tree(task.spec)  # (hidden tests staged)
    went = []
    real_go = testrun.Early.go
    monkeypatch.setattr(testrun.Early, "go", lambda self, argv: went.append(argv) or real_go(self, argv))
    late = testrun.run_tests(task, cfg, env, tree, 0, None)
    early = testrun.start_early(task, cfg, env, 0, [])
    assert early is not None and not went
    started = testrun.run_tests(task, cfg, env, tree, 0, None, early=early)
    assert len(went) == 1 and not early.scratch.exists()
    mine = [t for t in late.outcomes if "test_started" in t]
    assert len(mine) == 9 and all(late.outcomes[t].status == "pass" for t in mine if "saw" not in t), late.outcomes
    for saw in [t for t in late.outcomes if "test_what_it_saw" in t]:
        assert started.outcomes[saw].message == late.outcomes[saw].message, (started.outcomes[saw], late.outcomes[saw])
    assert started.outcomes == late.outcomes  # statuses and messages
    assert "['/repo', '/env'," in started.outcomes["tests/test_started.py::test_what_it_saw[path]"].message


@pytest.mark.sandbox
def test_an_early_sandbox_that_does_not_fit_the_run_is_not_used(tmp_path, monkeypatch):
    """Started with other read-only files than the run's (a host file tripwires were not planted in), or ended
    before its command went in: the run starts a sandbox of its own, and the early one is gone."""
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import reference, testrun
    from loop.sandbox import SandboxConfig

    task, cfg = _started_task(tmp_path), SandboxConfig()
    env, tree = repo_kind._environment(task.spec, cfg), reference._base_tree(task.spec)
    went = []
    real_go = testrun.Early.go
    monkeypatch.setattr(testrun.Early, "go", lambda self, argv: went.append(argv) or real_go(self, argv))
    other = testrun.start_early(task, cfg, env, 0, ["tests/test_money.py"])
    res = testrun.run_tests(task, cfg, env, tree, 0, None, early=other)
    assert not went and other.done and other.started.proc.poll() is not None and not other.scratch.exists()
    assert res.outcomes and all(o.status == "pass" for t, o in res.outcomes.items() if "started.py::test_h" in t)

    ended = testrun.start_early(task, cfg, env, 0, [])
    ended.started.proc.kill()  # (bwrap, as a sandbox that died before the tree was ready)
    ended.started.proc.wait()
    res = testrun.run_tests(task, cfg, env, tree, 0, None, early=ended)
    assert len(went) == 1 and res.fault is None and res.outcomes
    assert all(o.status == "pass" for t, o in res.outcomes.items() if "started.py::test_h" in t)


@pytest.mark.sandbox
def test_a_k1_run_whose_early_sandbox_does_not_fit_runs_its_moved_tree_in_a_sandbox_of_its_own(monkeypatch):
    """A k=1 grade moves its patched tree into the early sandbox's folders before it knows which files its
    tripwires went into (here none: every plan empty, so the early sandbox bound host files the run does not
    protect). That sandbox is then killed and the same tree runs in one of the run's own: every test reported."""
    from conftest import ROOT
    from loop import tasks
    from loop import verdicts as V
    from loop.grading.model import Options
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import testrun
    from loop.sandbox import SandboxConfig

    task, cfg = tasks.load_folder(ROOT / "harness" / "tasks" / "repo_ledger_py"), SandboxConfig()
    repo_kind.KIND.grade(task, task.reference, cfg, Options(k=1, trials=0))  # (the probes, once per process)
    made, real_start = [], testrun.start_early
    monkeypatch.setattr(repo_kind, "start_early", lambda *a: made.append(real_start(*a)) or made[-1])
    monkeypatch.setattr(testrun.repo_tripwire, "plan_all", lambda *a, **k: None)
    grade = repo_kind.KIND.grade(task, task.reference, cfg, Options(k=1, trials=0))
    assert grade.verdict == V.STABLE_PASS, grade.failures()
    assert sum(c.category == "test" for c in grade.checks) >= 40  # every test of the task, none missing
    assert len(made) == 1 and made[0].done and made[0].started.proc.poll() is not None
    assert not made[0].scratch.exists()


@pytest.mark.sandbox
def test_a_grade_starts_its_first_run_early_and_grades_as_before(monkeypatch):
    """Once the task's tripwire points are known, a grade's first repeat runs in the sandbox started before the
    patch step: the gold patch passes, a wrong one fails as it did, and a patch that does not apply leaves no
    sandbox behind."""
    from conftest import ROOT
    from loop import tasks
    from loop import verdicts as V
    from loop.grading.model import Options
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import testrun
    from loop.sandbox import SandboxConfig

    task, cfg = tasks.load_folder(ROOT / "harness" / "tasks" / "repo_ledger_py"), SandboxConfig()
    examples = ROOT / "harness" / "examples" / "repo_ledger_py"
    repo_kind.KIND.grade(task, task.reference, cfg, Options(k=1, trials=0))  # (the probes, once per process)
    went, made = [], []
    real_go, real_start = testrun.Early.go, testrun.start_early
    monkeypatch.setattr(testrun.Early, "go", lambda self, argv: went.append(argv) or real_go(self, argv))
    monkeypatch.setattr(repo_kind, "start_early", lambda *a: made.append(real_start(*a)) or made[-1])
    for diff, verdict in ((task.reference, V.STABLE_PASS), ((examples / "add_half_truncate.diff").read_text(),
                                                          V.STABLE_FAIL)):
        grade = repo_kind.KIND.grade(task, diff, cfg, Options(k=1, trials=0))
        assert grade.verdict == verdict, grade.failures()
    assert len(went) == 2 and all(e is not None and e.done for e in made)
    refused = repo_kind.KIND.grade(task, task.reference.replace("-    return round", "-    return ROUND"), cfg,
                                   Options(k=1, trials=0))
    assert refused.verdict == V.STABLE_FAIL and len(made) == 3 and len(went) == 2
    assert made[-1].started.proc.poll() is not None and not made[-1].scratch.exists()


# the patched tree: copied per repeat, moved into a k=1 grade's one run ------------------------------------
@pytest.mark.sandbox
def test_a_k1_grade_runs_in_the_patched_tree_itself(monkeypatch):
    """A k=1 grade's one run takes the patched tree (moved, opened to the sandbox's uid as a copy would be):
    one copy of a SWE-bench tree (thousands of files) fewer per grade. Repeats still run in copies of their own."""
    from conftest import ROOT
    from loop import tasks
    from loop import verdicts as V
    from loop.grading.model import Options
    from loop.kinds.repo import kind as repo_kind
    from loop.kinds.repo import patch as repo_patch
    from loop.sandbox import SandboxConfig

    task = tasks.load_folder(ROOT / "harness" / "tasks" / "repo_ledger_py")
    copied = []
    real = repo_patch.fresh_copy
    monkeypatch.setattr(repo_patch, "fresh_copy", lambda src, dest, *a: copied.append(src.name) or real(src, dest, *a))
    for k, copies in ((1, 0), (2, 2)):
        copied.clear()
        grade = repo_kind.KIND.grade(task, task.reference, SandboxConfig(), Options(k=k, trials=0))
        assert grade.verdict == V.STABLE_PASS and copied.count("patched") == copies, (k, grade.verdict, copied)


def test_a_moved_tree_leaves_out_what_a_copy_leaves_out(tmp_path):
    """A patch's `.pytest_cache` (pytest reads it under --lf, --ff, --sw) or `__pycache__` is gone from a moved
    tree as from a copy (red team round thirteen noticed the moved tree kept them); the rest is there, open to
    the sandbox's uid."""
    import stat

    from loop.kinds.repo import patch as repo_patch

    for how in (repo_patch.fresh_copy, repo_patch.moved):
        tree = tmp_path / how.__name__
        (tree / "pkg" / "__pycache__").mkdir(parents=True)
        (tree / ".pytest_cache" / "v").mkdir(parents=True)
        (tree / ".pytest_cache" / "v" / "lastfailed").write_text("{}")
        (tree / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
        (tree / "pkg" / "m.py").write_text("x = 1\n")
        (tree / "pkg" / "m.py").chmod(0o600)
        out = how(tree, tmp_path / f"{how.__name__}-out")
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == ["pkg", "pkg/m.py"], how
        assert stat.S_IMODE((out / "pkg" / "m.py").stat().st_mode) == 0o666
