"""Issue 28's fences for repository tasks, one by one: the test-infrastructure screen, tripwire tests, file modes
as git reads them, git apply and its .rej files inside the sandbox, reports read without following links, and a
sandboxed command that cannot reach loop's hello pipe. The hostile corpus in tests/adversarial/test_repo_attacks.py
runs them end to end."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from loop import tasks
from loop import verdicts as V
from loop.errors import TaskError
from loop.kinds.repo import changes as repo_changes, patch as repo_patch, screen as repo_screen, tripwire as repo_tripwire
from loop.kinds.repo.results import Outcome, parse
from loop.sandbox import Limits, SandboxConfig, clean_env, make_scratch, run

TASKS = ROOT / "harness" / "tasks"
CFG = SandboxConfig()


def _new(path: str, body: str = "x = 1\n") -> str:
    lines = body.splitlines()
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{l}\n" for l in lines))


def _edit(path: str, old: str, new: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n-{old}\n+{new}\n"


def git_apply(diff: str, tree: Path) -> subprocess.CompletedProcess:
    """git apply as loop runs it, outside any repository and unsandboxed (the diffs are the test's own)."""
    env = {"PATH": "/usr/bin:/bin", "GIT_CEILING_DIRECTORIES": str(tree.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(tree.parent)}
    return subprocess.run(["git", "apply", "--recount", "--whitespace=nowarn", "-p1", "-"], cwd=tree, input=diff.encode(),
                          env=env, capture_output=True, timeout=60)


def _screen(task: str, diff: str, tmp_path: Path, allowed: tuple[str, ...] = ()) -> str | None:
    """The screen on what `diff` changed in a copy of the task's tree."""
    base = TASKS / task / "repo"
    copy = repo_patch.fresh_copy(base, tmp_path / task)
    assert git_apply(diff, copy).returncode == 0
    return repo_screen.screen(repo_changes.between(base, copy), base, copy, allowed)


# the screen ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("diff,named", [
    (_new("conftest.py"), "conftest.py"),
    (_new("ledger/conftest.py"), "ledger/conftest.py"),
    (_new("pytest.ini", "[pytest]"), "pytest.ini"),
    (_new("tests/.pytest.toml", "[pytest]"), "tests/.pytest.toml"),  # pytest 9's (red team round nine, read)
    (_new("setup.cfg", "[tool:pytest]"), "setup.cfg"),
    (_new("sitecustomize.py"), "sitecustomize.py"),
    (_new("ledger/evil.pth", "import os"), "ledger/evil.pth"),
    (_new("_pytest/__init__.py"), "_pytest/__init__.py"),
    (_new("pytest.py"), "pytest.py"),
    (_new("json.py"), "json.py"),
    (_new("ledger/test_extra.py"), "ledger/test_extra.py"),
    (_new("ledger/__pycache__/tax.cpython-311.pyc"), "__pycache__"),
    (_new("src/x.test.js", "import 'node:test';"), "src/x.test.js"),
    (_new("src/test/helpers.mjs", "import 'node:test';"), "src/test/helpers.mjs"),  # node 20 runs test/**/*.js
    (_new("package.json", "{}"), "package.json"),
    (_new("node_modules/assert/index.js"), "node_modules/assert/index.js"),
    (_new("go.mod", "module x"), "go.mod"),
    (_new("vendor/x/y.go", "package y"), "vendor/x/y.go"),
    (_new("helpers.go", "package semver\nfunc TestMain(m *testing.M) {}"), "TestMain"),
    (_new("drop.go", "//go:build ignore\npackage semver"), "go:build"),
    (_new("hook.go", "package semver\n//go:linkname x testing.x"), "go:linkname"),
    (_new("ledger_receipts-1.0.dist-info/entry_points.txt", "[pytest11]\nr = ledger._r"), "dist-info"),
    (_new("ledger.egg-info/entry_points.txt", "[pytest11]\nr = ledger._r"), "egg-info"),
    # importlib.metadata lowercases a sys.path entry's children before matching (red team round six)
    (_new("ledger_hooks-1.0.DIST-INFO/entry_points.txt", "[pytest11]\nr = ledger._r"), "DIST-INFO"),
    (_new("ledger.Egg-Info/entry_points.txt", "[pytest11]\nr = ledger._r"), "Egg-Info"),
])
def test_the_screen_names_test_infrastructure(diff, named, tmp_path):
    why = _screen("repo_ledger_py", diff, tmp_path)
    assert why is not None and named in why, why


@pytest.mark.parametrize("task", ["repo_ledger_py", "repo_strkit_js", "repo_semver_go"])
def test_gold_patches_and_new_modules_pass_the_screen(task, tmp_path):
    assert _screen(task, (TASKS / task / "gold.patch").read_text(), tmp_path / "gold") is None
    helper = _new("ledger/rounding.py", "def half_up(x):\n    return x")  # a new module of the package is code
    assert _screen("repo_ledger_py", helper, tmp_path / "helper") is None


def test_a_task_may_allow_some_infrastructure(tmp_path):
    diff = _new("go.mod", "module x")
    assert _screen("repo_ledger_py", diff, tmp_path / "a", allowed=("go.mod",)) is None
    assert _screen("repo_ledger_py", diff, tmp_path / "b", allowed=("package.json",)) is not None


# file modes ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["120000", "0120000", "00120000", "160000", "12O000", "40000"])
def test_every_spelling_of_a_non_regular_mode_is_refused(mode):
    diff = f"diff --git a/x.rej b/x.rej\nnew file mode {mode}\n--- /dev/null\n+++ b/x.rej\n@@ -0,0 +1 @@\n+/etc\n"
    refusal = repo_patch.refuse(diff, TASKS / "repo_ledger_py" / "repo", [], [])
    assert refusal is not None and refusal.check == repo_patch.OUTSIDE_REPOSITORY


@pytest.mark.parametrize("mode", ["100644", "100755", "0100644"])
def test_regular_modes_pass(mode):
    diff = f"diff --git a/x.txt b/x.txt\nnew file mode {mode}\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1 @@\n+x\n"
    assert repo_patch.refuse(diff, TASKS / "repo_ledger_py" / "repo", [], []) is None


# .rej files and links, applied in the sandbox ------------------------------------------------------------
@pytest.fixture
def tree():
    scratch = make_scratch("loop-test-tree-")
    work = repo_patch.fresh_copy(TASKS / "repo_ledger_py" / "repo", scratch / "repo")
    yield work
    shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture
def host_secret():
    """A 0600 file of loop's own user, outside anything the sandbox mounts."""
    folder = Path(make_scratch("loop-test-secret-"))
    secret = folder / "secret.txt"
    secret.write_text("HOST-SECRET-" + os.urandom(6).hex())
    secret.chmod(0o600)
    yield secret
    shutil.rmtree(folder, ignore_errors=True)


STALE = "--- a/ledger/tax.py\n+++ b/ledger/tax.py\n@@ -1,1 +1,1 @@\n-no such line\n+x\n"


@pytest.mark.parametrize("target", ["secret", "/", "/dev/zero", "/proc/self/environ"])
@pytest.mark.sandbox
def test_rej_links_are_never_read_on_the_host(tree, host_secret, target):
    """A link named like a .rej file that git apply --reject will write, to a private host file, to / (a folder:
    a crash once) and to /dev/zero (endless once): the second hunk does not apply, so --reject runs. It runs in
    the sandbox and prints only regular .rej files: the grade says the patch does not apply, quoting nothing
    of the host."""
    dest = str(host_secret) if target == "secret" else target
    (tree / "ledger" / "tax.py.rej").symlink_to(dest)  # as if a mode line had slipped past the screen
    rejected = repo_patch.apply(STALE, tree, CFG)
    assert rejected is not None
    assert "HOST-SECRET" not in rejected and len(rejected) <= 4000


def test_links_the_patch_made_are_found(tree):
    base = TASKS / "repo_ledger_py" / "repo"

    def planted():
        refusal = repo_patch.refuse_changes(repo_changes.between(base, tree), base, [], [])
        return refusal and (refusal.check, refusal.detail.split("(")[-1].rstrip(")"))

    assert planted() is None
    (tree / "ledger" / "data").symlink_to("/etc")
    assert planted() == (repo_patch.OUTSIDE_REPOSITORY, "ledger/data")
    (tree / "ledger" / "data").unlink()
    os.mkfifo(tree / "ledger" / "pipe")
    assert planted() == (repo_patch.OUTSIDE_REPOSITORY, "ledger/pipe")
    (tree / "ledger" / "pipe").unlink()
    (tree / "ledger" / "tax.py").unlink()
    (tree / "ledger" / "tax.py").symlink_to("invoice.py")  # a file turned into a link
    assert planted() == (repo_patch.OUTSIDE_REPOSITORY, "ledger/tax.py")


@pytest.mark.sandbox
def test_a_rejected_hunk_is_quoted(tree):
    rejected = repo_patch.apply(STALE, tree, CFG)
    assert "ledger/tax.py.rej" in rejected and "no such line" in rejected


def test_reports_are_read_without_following_links(tmp_path, host_secret):
    report = tmp_path / "report.xml"
    report.symlink_to(host_secret)
    assert repo_patch.read_capped(report, 1 << 20) is None
    report.unlink()
    os.mkfifo(report)
    assert repo_patch.read_capped(report, 1 << 20) is None  # a FIFO: no hang
    report.unlink()
    report.write_bytes(b"x" * 100)
    assert repo_patch.read_capped(report, 99) is None and repo_patch.read_capped(report, 100) == b"x" * 100


# tripwires ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command,kind", [
    (("python3", "-m", "pytest", "-q"), "pytest"), (("pytest", "-x"), "pytest"), (("/usr/bin/py.test",), "pytest"),
    (("node", "--test"), "node"), (("go", "test", "-json", "./..."), "go"), (("make", "test"), None),
    (("node", "test.js"), None)])
def test_the_runners_tripwires_are_written_for(command, kind):
    assert repo_tripwire.framework(command) == kind


@pytest.mark.parametrize("name", ["repo_ledger_py", "repo_strkit_js", "repo_semver_go"])
def test_tripwires_look_like_their_neighbours_and_differ_every_run(name, tree):
    task = tasks.load_folder(TASKS / name)
    spec = task.spec
    work = make_scratch("loop-test-wires-") / "repo"
    repo_patch.fresh_copy(spec.tree, work)
    for rel in spec.hidden_files:
        shutil.copyfile(spec.hidden / rel, work / rel)
    plans = [repo_tripwire.plan(spec.command, work, list(spec.hidden_files), spec.fail_to_pass, random.Random(s))
             for s in (1, 2)]
    for p in plans:
        assert p.host in spec.hidden_files
        expects = [w.expect for w in p.wires]
        # one must-pass: an unchanged copy of a test where the file has one to copy
        assert expects.count(repo_tripwire.SAME) == 1 and V.PASS not in expects and 1 <= expects.count(V.FAIL) <= 3
        assert all(w.name in p.text for w in p.wires)
    # among the file's own tests, not always after them: the last test of some plan is a real one
    last = [re.findall(TEST_DEF[name], repo_tripwire.plan(spec.command, work, list(spec.hidden_files),
                                                           spec.fail_to_pass, random.Random(s)).text)[-1]
            for s in range(12)]
    wires = {w.name for s in range(12) for w in repo_tripwire.plan(
        spec.command, work, list(spec.hidden_files), spec.fail_to_pass, random.Random(s)).wires}
    assert any(t not in wires for t in last), last
    # one must-fail calls the candidate's code as the hidden tests do (a real test, its expected value changed)
    call = {"repo_ledger_py": "compute_tax(", "repo_strkit_js": "truncate", "repo_semver_go": "Latest("}[name]
    p = plans[0]
    derived = [w for w in p.wires if w.expect == V.FAIL and call in p.text.split(w.name, 1)[1].split("\n\n")[0]]
    assert derived, p.text
    # fresh names: a copy's is its original's with one word changed, so two runs may share one, rarely more
    assert len({w.name for w in plans[0].wires} & {w.name for w in plans[1].wires}) <= 1
    assert len(wires) >= 18  # of about 36 (12 runs); a copy of a three-word Go name has some 30 to choose from
    stems = {"repo_ledger_py": "test_", "repo_strkit_js": "", "repo_semver_go": "Test"}[name]
    assert all(w.name.startswith(stems) for w in plans[0].wires)
    shutil.rmtree(work.parent, ignore_errors=True)


TEST_DEF = {"repo_ledger_py": r"(?m)^def (test\w*)", "repo_strkit_js": r"test\('((?:[^'\\]|\\.)*)'",
            "repo_semver_go": r"(?m)^func (Test\w*)"}


def test_tripwire_ids_go_anywhere_among_the_ids():
    """A forger reading its argv (pytest's ids) must not find them at the end (red team, round two)."""
    ids = [f"t.py::test_{i}" for i in range(9)]
    tails = set()
    for seed in range(40):
        out = repo_tripwire.among(ids, ["w1", "w2", "w3"], random.Random(seed))
        assert sorted(out) == sorted(ids + ["w1", "w2", "w3"]) and [x for x in out if x in ids] == ids
        tails.add(tuple(out[-3:]))
    assert any(not set(t) & {"w1", "w2", "w3"} for t in tails)


@pytest.mark.parametrize("report", [
    "<testsuites>" + "<testsuite name='s'>" * 5000 + "<testcase classname='test' name='x'/>" + "</testsuite>" * 5000
    + "</testsuites>",
    "<testsuites><testsuite><testcase classname='" + "a" * 300 + "' name='x'/></testsuite></testsuites>",
    "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e 'xxxxxxxxxx'>]><testsuites><testsuite><testcase classname='c' "
    "name='x'><failure>&e;&e;&e;</failure></testcase></testsuite></testsuites>",
])
def test_reports_built_to_break_the_parser_are_read_or_refused_never_raised(report, tmp_path):
    out = parse("junit", report, tmp_path)
    assert out is None or all(isinstance(o, Outcome) for o in out.values())


def test_a_deep_report_is_still_read():
    deep = "<testsuites>" + "<testsuite name='s'>" * 3000 + "<testcase classname='test' name='x'/>" \
           + "</testsuite>" * 3000 + "</testsuites>"
    out = parse("junit", deep)
    assert out is not None and list(out.values()) == [Outcome(V.PASS)]


@pytest.mark.parametrize("name", ["repo_ledger_py", "repo_strkit_js", "repo_semver_go"])
def test_failure_messages_keep_the_hidden_files_own_line_numbers(name, tmp_path):
    """Tripwires shift the lines below them (differently every run): a message naming a line of the host file
    names it as the task's file has it, so feedback and runs.db do not change from run to run."""
    spec = tasks.load_folder(TASKS / name).spec
    work = tmp_path / "repo"
    shutil.copytree(spec.tree, work)
    for rel in spec.hidden_files:
        shutil.copyfile(spec.hidden / rel, work / rel)
    for seed in range(5):
        p = repo_tripwire.plan(spec.command, work, list(spec.hidden_files), spec.fail_to_pass, random.Random(seed))
        old, new = (work / p.host).read_text().splitlines(), p.text.splitlines()
        base = Path(p.host).name
        for j, line in enumerate(new, 1):
            was = p.lines[j]
            assert was is None or old[was - 1] == line
            if was is not None and j != was:  # a plan, or a run's tripwires (one file's, as a SWE-bench row's)
                for run in (p, repo_tripwire.Planted((p,))):
                    assert repo_tripwire.restore_lines(run, f"{base}:{j}: boom") == f"{base}:{was}: boom"
        for w in p.wires:  # a tripwire's own lines are its own, even a copy's that equal its original's
            j = next(j for j, line in enumerate(new, 1) if w.name in line and "(" in line)
            assert p.lines[j] is None and (not new[j - 1].rstrip().endswith(("{", ":")) or p.lines[j + 1] is None)


def _plan():
    return repo_tripwire.Plan("t.py", "", (repo_tripwire.Wire("test_a_twice", V.FAIL, "t.py::test_a_twice"),
                                           repo_tripwire.Wire("test_a_zero", V.FAIL, "t.py::test_a_zero"),
                                           repo_tripwire.Wire("test_a_odd", V.PASS, "t.py::test_a_odd")))


def test_a_report_that_contradicts_a_tripwire_is_forged():
    p, f2p = _plan(), ("t.py::test_a",)
    honest = {"t.py::test_a": Outcome(V.PASS), "t.py::test_a_twice": Outcome(V.FAIL),
              "t.py::test_a_zero": Outcome(V.FAIL), "t.py::test_a_odd": Outcome(V.PASS)}
    assert repo_tripwire.contradiction(p, honest, f2p) is None
    assert repo_tripwire.without(p, honest) == {"t.py::test_a": Outcome(V.PASS)}
    flipped = {**honest, "t.py::test_a_zero": Outcome(V.PASS)}
    assert "forged" in repo_tripwire.contradiction(p, flipped, f2p)
    canned = {"t.py::test_a": Outcome(V.PASS)}  # a report written without knowing the run's tests
    assert "forged" in repo_tripwire.contradiction(p, canned, f2p)
    broken = {"t.py::test_a": Outcome(V.FAIL)}  # the file did not even import: an honest failure
    assert repo_tripwire.contradiction(p, broken, f2p) is None
    assert repo_tripwire.contradiction(p, None, f2p) is None


def test_a_copy_that_passes_is_a_forgery_only_when_its_original_passes_too():
    """A wrong tree may return a copy's changed value (the demo's ellipsis patch returned 'hell👉', one letter
    off 'hello👉'): with its original failing that is an honest failure; both passing is no honest tree."""
    copy = repo_tripwire.Wire("test_b_copy", V.FAIL, "t.py::test_b_copy", "t.py::test_b")
    p = repo_tripwire.Plan("t.py", "", (copy, repo_tripwire.Wire("test_c", V.PASS, "t.py::test_c")))
    f2p = ("t.py::test_a",)
    base = {"t.py::test_a": Outcome(V.FAIL), "t.py::test_c": Outcome(V.PASS), "t.py::test_b_copy": Outcome(V.PASS)}
    assert repo_tripwire.contradiction(p, {**base, "t.py::test_b": Outcome(V.FAIL)}, f2p) is None
    assert "forged" in repo_tripwire.contradiction(p, {**base, "t.py::test_b": Outcome(V.PASS)}, f2p)


# the hello pipe -----------------------------------------------------------------------------------------
def test_a_command_that_stops_at_the_first_failure_is_refused(tmp_path):
    folder = tmp_path / "repo_ledger_py"
    shutil.copytree(TASKS / "repo_ledger_py", folder)
    toml = folder / "task.toml"
    toml.write_text(toml.read_text().replace('"-q", "-p"', '"-q", "-x", "-p"'))
    with pytest.raises(TaskError, match="'-x', which stops at the first failing test"):
        tasks.load_folder(folder)


@pytest.mark.sandbox
def test_a_sandboxed_command_holds_no_descriptor_of_loops():
    """`run` says hello from a trusted shell; the command it then starts holds only its stdio, so it cannot
    reopen the hello pipe through /proc/self/fd and drain it (infra_unknown faked, issue 28)."""
    script = "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"
    res = run(CFG, ["/usr/bin/python3", "-I", "-S", "-c", script], limits=Limits(), env=clean_env())
    assert res.fault is None
    fds = eval(res.stdout.decode())
    assert fds == [0, 1, 2, 3], fds  # 3: the listing's own directory descriptor
    drain = "import os\nfor f in os.listdir('/proc/self/fd'):\n    try:\n        os.read(os.open('/proc/self/fd/' + f, os.O_RDONLY | os.O_NONBLOCK), 99)\n    except OSError:\n        pass\n"
    assert run(CFG, ["/usr/bin/python3", "-I", "-S", "-c", drain], limits=Limits(), env=clean_env()).fault is None


@pytest.mark.sandbox
def test_a_read_only_files_folder_cannot_be_moved_aside_and_replaced():
    """Red team round eight: renaming the hidden tests' folder took their read-only binds along, and a folder of
    the candidate's own took its place (rename(2) refuses only a mount point). Every folder between the writable
    tree and a read-only file is one now; the tree stays writable."""
    scratch = make_scratch("loop-test-")
    work = scratch / "repo"
    (work / "tests" / "deep").mkdir(parents=True)
    (work / "tests" / "deep" / "test_x.py").write_text("hidden\n")
    for folder in (work, work / "tests", work / "tests" / "deep"):
        folder.chmod(0o777)
    script = ("import os\n"
              "for a, b in (('/repo/tests', '/repo/aside'), ('/repo/tests/deep', '/repo/tests/aside')):\n"
              "    try:\n        os.rename(a, b); print('moved', a)\n"
              "    except OSError as e:\n        print('refused', a, e.errno)\n"
              "open('/repo/tests/new.txt', 'w').write('x'); print('wrote')\n"
              "try:\n    open('/repo/tests/deep/test_x.py', 'w')\nexcept OSError as e:\n    print('read-only', e.errno)\n")
    res = run(CFG, ["/usr/bin/python3", "-I", "-S", "-c", script], limits=Limits(), env=clean_env(),
              rw={"/repo": str(work)}, ro={"/repo/tests/deep/test_x.py": str(work / "tests" / "deep" / "test_x.py")})
    out = res.stdout.decode()
    assert out.splitlines() == ["refused /repo/tests 16", "refused /repo/tests/deep 16", "wrote", "read-only 30"], \
        (out, res.stderr.decode()[-500:])
    assert (work / "tests" / "deep" / "test_x.py").read_text() == "hidden\n" and (work / "tests" / "new.txt").exists()
    shutil.rmtree(scratch)
