"""Repository tasks in JavaScript (node --test) and Go (go test -json): the shipped tasks and their curated
patches, the tap parser, whole-file replies, a base tree from a git bundle, environments and a missing toolchain."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from loop import kinds, tasks
from loop import verdicts as V
from loop.kinds.task import task_digest
from loop.grading.model import Options
from loop.kinds.repo import env as repo_env, patch as repo_patch
from loop.kinds.repo.kind import RepoKind
from loop.kinds.repo.results import parse_junit, parse_tap
from loop.sandbox import SandboxConfig

CFG = SandboxConfig()
TASKS = ROOT / "harness" / "tasks"
EXAMPLES = ROOT / "harness" / "examples"
JS, GO = "repo_strkit_js", "repo_semver_go"
GIT = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/tmp"}


@pytest.fixture
def cache(monkeypatch) -> Path:
    """An empty environment cache (LOOP_ENV_CACHE = cache/envs; bundle trees go to cache/trees) that the
    sandbox's uid can reach: not under pytest's base temp, which any pytest session starting on this machine
    resets to mode 0700."""
    root = Path(tempfile.mkdtemp(prefix="loop-test-cache-"))
    root.chmod(0o755)
    monkeypatch.setenv("LOOP_ENV_CACHE", str(root / "envs"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _grade(task, diff: str | None, k: int = 2):
    return RepoKind().grade(task, diff, CFG, Options(k=k, trials=0))


def _copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "harness" / "tasks" / name
    shutil.copytree(TASKS / name, folder)
    return folder


def _edit(folder: Path, old: str, new: str) -> None:
    toml = folder / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new))


# the shipped tasks and their curated patches ------------------------------------------------------------
CURATED = {
    # task: (gold, fixes nothing, regresses), f2p count, p2p count, the p2p tests the regression breaks
    JS: (("gold", "normalize_nfc", "ellipsis_counted_once"), 5, 48,
         {"test:truncate > a custom ellipsis counts toward max", "test:truncate > an empty ellipsis cuts hard"}),
    GO: (("gold", "strings_compare", "build_tiebreak"), 6, 82,
         {"test:example.com/semver::TestCompare", "test:example.com/semver::TestCompare/1.0.0+a_vs_1.0.0+b",
          "test:example.com/semver::TestCompare/1.0.0-rc.1+x_vs_1.0.0-rc.1+y",
          "test:example.com/semver::TestLessAndEqual", "test:example.com/semver::TestSortIsStable"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", [JS, GO])
def test_three_curated_patches_end_as_curated(name):
    (gold, noop, bad), f2p, p2p, regressed = CURATED[name]
    task = tasks.load(ROOT, name)
    assert len(task.spec.fail_to_pass) == f2p and f2p + p2p >= 30

    g = _grade(task, (EXAMPLES / name / f"{gold}.diff").read_text())
    assert (g.verdict, g.resolved) == (V.STABLE_PASS, True)
    assert g.transitions() == {"fail_to_pass": {"repaired": f2p, "still_broken": 0},
                               "pass_to_pass": {"preserved": p2p, "regressed": 0}}

    g = _grade(task, (EXAMPLES / name / f"{noop}.diff").read_text())
    assert g.verdict == V.STABLE_FAIL
    assert g.transitions() == {"fail_to_pass": {"repaired": 0, "still_broken": f2p},
                               "pass_to_pass": {"preserved": p2p, "regressed": 0}}

    g = _grade(task, (EXAMPLES / name / f"{bad}.diff").read_text())
    assert g.verdict == V.STABLE_FAIL
    assert g.transitions() == {"fail_to_pass": {"repaired": f2p, "still_broken": 0},
                               "pass_to_pass": {"preserved": p2p - len(regressed), "regressed": len(regressed)}}
    assert {f["check"] for f in g.failures()} == regressed
    rows = {c.check: c for c in g.checks}
    assert all(rows[r].transition == V.REGRESSED for r in regressed)


@pytest.mark.sandbox
def test_go_failures_quote_the_test_output():
    """A sealed check's failure names its line and both values, a table's its row and the row's own subtest
    only (the shipped compare_test.go is sealed: no pass-to-pass list); an unsealed one quotes go test's output."""
    g = _grade(tasks.load(ROOT, GO), (EXAMPLES / GO / "build_tiebreak.diff").read_text(), k=1)
    failed = {f["check"].split("::")[-1]: f["detail"] for f in g.failures()}
    assert failed["TestCompare/1.0.0+a_vs_1.0.0+b"] == ("sealed assertion at compare_test.go:30: expected 0 (row 14) "
                                                        "(kept outside the sandbox), got int(-1)")
    assert sorted(t for t in failed if t.startswith("TestCompare/")) == ["TestCompare/1.0.0+a_vs_1.0.0+b",
                                                                        "TestCompare/1.0.0-rc.1+x_vs_1.0.0-rc.1+y"]
    assert failed["TestLessAndEqual"].startswith("compare_test.go:45:")
    g = _grade(tasks.load(ROOT, GO), (EXAMPLES / GO / "strings_compare.diff").read_text(), k=1)
    detail = next(f["detail"] for f in g.failures() if f["check"].endswith("TestSortNightlies"))
    assert detail.startswith("sealed assertion at compare_numeric_test.go:26: expected '2.0.0-nightly.1 ") \
        and "got string('2.0.0-nightly.1 2.0.0-nightly.10" in detail


def test_gold_patches_are_the_curated_gold():
    for name in (JS, GO):
        assert (TASKS / name / "gold.patch").read_text() == (EXAMPLES / name / "gold.diff").read_text()


def test_go_test_files_are_protected_by_a_glob():
    diff = ("--- a/compare_test.go\n+++ b/compare_test.go\n@@ -1,1 +1,1 @@\n-package semver\n+package semver // x\n")
    failure = _grade(tasks.load(ROOT, GO), diff, k=1).failures()
    assert [f["check"] for f in failure] == [repo_patch.TOUCHES_TESTS]
    assert "a test file (*_test.go)" in failure[0]["detail"]


# tap ----------------------------------------------------------------------------------------------------
NODE_TESTS = """
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
test('top ok', () => {});
test('top fail', () => { assert.equal(1, 2); });
describe('suite A', () => {
  test('inner ok', () => {});
  test('inner fail', () => { throw new Error('boom'); });
  test.skip('skipped', () => {});
  test.todo('later');
  describe('nested', () => { test('deep #1', () => {}); });
});
"""


def _node(tmp_path: Path, reporter: str) -> str:
    (tmp_path / "a.test.mjs").write_text(NODE_TESTS)
    dest = tmp_path / f"out.{reporter}"
    subprocess.run(["node", "--test", f"--test-reporter={reporter}", f"--test-reporter-destination={dest}",
                    "a.test.mjs"], cwd=tmp_path, capture_output=True, timeout=120)
    return dest.read_text()


def test_tap_and_junit_from_node_give_the_same_ids(tmp_path):
    tap = parse_tap(_node(tmp_path, "tap"))
    want = {"top ok": "pass", "top fail": "fail", "suite A > inner ok": "pass", "suite A > inner fail": "fail",
            "suite A > skipped": "skip", "suite A > later": "skip", "suite A > nested > deep #1": "pass"}
    assert {k: v.status for k, v in tap.items()} == want  # suites ("suite A", "nested") are not tests
    assert tap["suite A > inner fail"].message == "boom"
    junit = parse_junit(_node(tmp_path, "junit"))
    assert {k: v.status for k, v in junit.items() if k != "suite A > later"} == \
        {k: v for k, v in want.items() if k != "suite A > later"}


def test_tap_is_decoded_totally():
    assert parse_tap("") is None and parse_tap("garbage\n\x00\n---\n") is None
    flat = parse_tap("TAP version 13\n1..3\nok 1 - a\nnot ok 2 - b # TODO x\nnot ok 3\nBail out! disk\nok 4 - d\n")
    assert {k: v.status for k, v in flat.items()} == {"a": "pass", "b": "skip", "#3": "fail"}
    # an unterminated YAML block and absurd indentation end nothing
    assert parse_tap("not ok 1 - x\n  ---\n  error: 'e'\n" + " " * 400 + "ok 2 - y\n")["x"].status == "fail"


@pytest.mark.slow
def test_js_task_graded_through_the_tap_parser(tmp_path):
    folder = _copy(tmp_path, JS)
    _edit(folder, '"--test-reporter=junit", "--test-reporter-destination={report}"]', '"--test-reporter=tap"]')
    _edit(folder, 'parser = "junit"', 'parser = "tap"')
    task = tasks.load_folder(folder)
    assert task.spec.stdout_report
    g = _grade(task, (EXAMPLES / JS / "ellipsis_counted_once.diff").read_text(), k=1)
    assert g.transitions() == {"fail_to_pass": {"repaired": 5, "still_broken": 0},
                               "pass_to_pass": {"preserved": 46, "regressed": 2}}


# whole-file replies -------------------------------------------------------------------------------------
def _gold_file(name: str, rel: str, tmp_path: Path) -> str:
    tree = tmp_path / "gold-tree"
    repo_patch.fresh_copy(TASKS / name / "repo", tree)
    assert repo_patch.apply((TASKS / name / "gold.patch").read_text(), tree, repo_patch.TRUSTED) is None
    return (tree / rel).read_text()


@pytest.mark.slow
def test_a_reply_of_whole_files_is_a_candidate(tmp_path):
    task = tasks.load(ROOT, JS)
    fixed = _gold_file(JS, "src/truncate.js", tmp_path)
    chars = (TASKS / JS / "repo" / "src" / "chars.js").read_text()  # unchanged: adds nothing to the diff
    reply = (f"The fix counts code points.\n\n`src/truncate.js`:\n```js\n{fixed}```\n\n"
             f"```javascript path=src/chars.js\n{chars}```\n")
    diff = RepoKind().extract(task, reply)
    assert diff.startswith("diff --git a/src/truncate.js b/src/truncate.js\n") and "chars.js\n---" not in diff
    assert _grade(task, diff, k=1).verdict == V.STABLE_PASS


def test_whole_files_that_touch_tests_or_leave_the_tree_are_refused():
    task = tasks.load(ROOT, JS)
    kind = RepoKind()
    to_test = kind.extract(task, "```js test/truncate.test.js\nexport {};\n```\n")
    assert _grade(task, to_test, k=1).failures()[0]["check"] == repo_patch.TOUCHES_TESTS
    outside = kind.extract(task, "**../escape.js**\n```js\nowned\n```\n")
    assert _grade(task, outside, k=1).failures()[0]["check"] == repo_patch.OUTSIDE_REPOSITORY
    absolute = kind.extract(task, "```sh /etc/cron.d/x\nowned\n```\n")
    assert _grade(task, absolute, k=1).failures()[0]["check"] == repo_patch.OUTSIDE_REPOSITORY
    # a block naming no path is explanation, not a file: no candidate
    assert kind.extract(task, "Try this:\n```js\nconsole.log(1)\n```\n") is None


# a repository as a git bundle and a commit ---------------------------------------------------------------
def _bundle_task(tmp_path: Path) -> tuple[Path, str]:
    folder = _copy(tmp_path, JS)
    src = tmp_path / "src-repo"
    shutil.move(folder / "repo", src)
    run = lambda *a: subprocess.run(["git", *a], cwd=src, env=GIT, check=True, capture_output=True, text=True)
    run("init", "-q")
    run("add", "-A")
    run("commit", "-qm", "base")
    commit = run("rev-parse", "HEAD").stdout.strip()
    (src / "src" / "truncate.js").write_text("// a later commit the task does not pin\n")
    run("commit", "-qam", "later")
    run("bundle", "create", "-q", str(folder / "repo.bundle"), "--all")
    _edit(folder, 'repo = "repo"', f'repo = "repo.bundle"\ncommit = "{commit}"')
    return folder, commit


@pytest.mark.slow
def test_a_bundle_task_grades_from_its_pinned_commit(tmp_path, cache):
    folder, commit = _bundle_task(tmp_path)
    task = tasks.load_folder(folder)
    assert task.spec.tree.is_relative_to(cache / "trees")
    assert "export function truncate" in (task.spec.tree / "src" / "truncate.js").read_text()
    assert RepoKind().polarity(task, CFG) == []
    g = _grade(task, (EXAMPLES / JS / "gold.diff").read_text(), k=1)
    assert g.verdict == V.STABLE_PASS, (g.notes, g.failures())
    # the task hash covers the bundle's bytes
    before = task_digest(folder)
    with open(folder / "repo.bundle", "ab") as f:
        f.write(b"\0")
    assert task_digest(folder) != before


def test_a_bundle_without_the_commit_is_a_task_error(tmp_path, cache):
    folder, commit = _bundle_task(tmp_path)
    _edit(folder, commit, "0" * 40)
    with pytest.raises(tasks.TaskError, match=f"repo.bundle: commit {'0' * 40} is not in the bundle"):
        tasks.load_folder(folder)
    (folder / "repo.bundle").write_bytes(b"not a bundle")
    with pytest.raises(tasks.TaskError, match="not a readable git bundle"):
        tasks.load_folder(folder)


# environments, prepare, missing toolchain ----------------------------------------------------------------
def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\n')
    return cfg


@pytest.mark.slow
def test_tasks_prepare_builds_each_environment_once(tmp_path, cache, loop_cli):
    _copy(tmp_path, GO)
    _copy(tmp_path, JS)
    code, out = loop_cli("tasks", "prepare", config=_config(tmp_path))
    assert code == 0, out
    assert "repo_semver_go: go environment go-" in out and "repo_strkit_js: npm environment npm-" in out
    assert out.count(" built in ") == 2
    built = sorted(p.name for p in (cache / "envs").iterdir())
    assert [b.split("-")[0] for b in built] == ["go", "npm"]
    assert any((cache / "envs" / built[0] / "gocache").rglob("*-d"))  # compiled, so grades start warm
    code, out = loop_cli("tasks", "prepare", GO, config=_config(tmp_path))
    assert code == 0 and "repo_semver_go: go environment" in out and "already built" in out


def test_an_environment_key_is_its_content(tmp_path):
    spec = repo_env.EnvSpec("npm", (("package.json", '{"name": "a"}'),))
    other = repo_env.EnvSpec("npm", (("package.json", '{"name": "b"}'),))
    assert repo_env.env_key(spec, "python3") == repo_env.env_key(spec, "python3") != repo_env.env_key(other, "python3")


def test_bad_environment_tables_are_one_line_errors(tmp_path):
    folder = _copy(tmp_path, JS)
    _edit(folder, 'npm = "package.json"', 'npm = "package.json"\ngo = "go.mod"')
    with pytest.raises(tasks.TaskError, match="takes one of requirements, npm, go, not several"):
        tasks.load_folder(folder)
    _edit(folder, '\ngo = "go.mod"', '\ncargo = "Cargo.toml"')
    with pytest.raises(tasks.TaskError, match="unknown key 'environment.cargo'"):
        tasks.load_folder(folder)


def test_missing_toolchain_is_inconclusive_and_named_by_tasks_check(tmp_path, loop_cli):
    folder = _copy(tmp_path, GO)
    _edit(folder, 'parser = "go-test-json"', 'parser = "go-test-json"\ntoolchain = ["no-such-go-xyz"]')
    task = tasks.load_folder(folder)
    g = _grade(task, (EXAMPLES / GO / "gold.diff").read_text())
    assert g.verdict == V.INCONCLUSIVE and V.exit_status(g.verdict) == V.EXIT_INCONCLUSIVE
    assert g.notes == [f"{GO}: toolchain 'no-such-go-xyz' is not installed on this machine; "
                       "grades are inconclusive until it is"]
    assert kinds.unavailable(task) == g.notes[0]
    code, out = loop_cli("tasks", "check", config=_config(tmp_path))
    assert code == 0  # never fails a batch or a check
    assert out.strip() == f"skip {g.notes[0]}"
    code, out = loop_cli("tasks", "prepare", config=_config(tmp_path))
    assert code == 0 and f"{GO}: {g.notes[0]}" in out


def test_a_batch_warns_once_for_a_missing_toolchain_and_finishes(tmp_path, loop_cli):
    from conftest import ChatServer

    folder = _copy(tmp_path, GO)
    _edit(folder, 'parser = "go-test-json"', 'parser = "go-test-json"\ntoolchain = ["no-such-go-xyz"]')
    gold = (EXAMPLES / GO / "gold.diff").read_text()
    server = ChatServer(lambda body: (200, {"choices": [{"index": 0, "message": {
        "role": "assistant", "content": f"```diff\n{gold}```"}}]}, {}))
    try:
        code, out = loop_cli("run", "--task", GO, "--samples", "2", "--k", "1", "--base-url", server.url,
                             config=_config(tmp_path))
    finally:
        server.close()
    warning = f"warning: {GO}: toolchain 'no-such-go-xyz' is not installed on this machine"
    assert out.count(warning) == 1
    assert code == V.EXIT_INCONCLUSIVE  # nothing decided: coverage 0, exit 3, but the batch is done
    con = sqlite3.connect(tmp_path / "runs.db")
    assert con.execute("select status from batches").fetchall() == [("done",)]
    assert con.execute("select verdict from candidates").fetchall() == [(V.INCONCLUSIVE,), (V.INCONCLUSIVE,)]


@pytest.mark.slow
@pytest.mark.parametrize("name", [JS, GO])
def test_no_sandbox_runs_the_same_command_in_host_folders(name):
    """--no-sandbox: the report path, node_modules and Go's cache copy become host folders (loudly unsandboxed)."""
    task = tasks.load(ROOT, name)
    g = RepoKind().grade(task, (EXAMPLES / name / "gold.diff").read_text(), SandboxConfig(enabled=False),
                         Options(k=1, trials=0))
    assert g.verdict == V.STABLE_PASS, g.failures()


@pytest.mark.slow
def test_a_package_json_dependency_is_installed_once_and_mounted_read_only(tmp_path, cache):
    """npm installs the declared dependency (a local tarball: nothing is fetched) into the environment cache;
    the tests import it from /node_modules, which the sandboxed tests cannot write."""
    import io
    import tarfile

    dep = tmp_path / "tinypad-1.0.0.tgz"
    with tarfile.open(dep, "w:gz") as tar:
        for name, text in {"package/package.json": '{"name": "tinypad", "version": "1.0.0", "type": "module", '
                                                   '"main": "index.js"}',
                           "package/index.js": "export const tinypad = (s, n) => s.padStart(n, '.');\n"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    folder = _copy(tmp_path, JS)
    pkg = json.loads((folder / "repo" / "package.json").read_text())
    (folder / "repo" / "package.json").write_text(json.dumps({**pkg, "dependencies": {"tinypad": f"file:{dep}"}}))
    (folder / "repo" / "test" / "dep.test.js").write_text(
        "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';\n"
        "import { writeFileSync } from 'node:fs';\nimport { tinypad } from 'tinypad';\n"
        "describe('dep', () => {\n"
        "  test('tinypad resolves', () => assert.equal(tinypad('7', 3), '..7'));\n"
        "  test('node_modules is read-only', () => assert.throws(() => "
        "writeFileSync('/node_modules/tinypad/index.js', 'x')));\n"
        "});\n")
    task = tasks.load_folder(folder)
    assert RepoKind().prepare(task, CFG).startswith("npm environment npm-")
    (built,) = [p for p in (cache / "envs").iterdir() if p.name.startswith("npm-")]
    assert (built / "node_modules" / "tinypad" / "index.js").is_file()
    g = _grade(task, (EXAMPLES / JS / "gold.diff").read_text(), k=1)
    assert g.verdict == V.STABLE_PASS, g.failures()
    rows = {c.check: c.transition for c in g.checks}
    assert rows["test:dep > tinypad resolves"] == rows["test:dep > node_modules is read-only"] == V.PRESERVED
    assert RepoKind().prepare(task, CFG).endswith("already built")


def _go_proxy(root: Path) -> Path:
    """A Go module proxy as files (GOPROXY=file://...): one module, example.com/dep v1.0.0. Nothing is fetched."""
    import zipfile

    at = root / "example.com" / "dep" / "@v"
    at.mkdir(parents=True)
    (at / "list").write_text("v1.0.0\n")
    (at / "v1.0.0.info").write_text('{"Version": "v1.0.0", "Time": "2024-01-01T00:00:00Z"}')
    (at / "v1.0.0.mod").write_text("module example.com/dep\n\ngo 1.19\n")
    with zipfile.ZipFile(at / "v1.0.0.zip", "w") as z:
        z.writestr("example.com/dep@v1.0.0/go.mod", "module example.com/dep\n\ngo 1.19\n")
        z.writestr("example.com/dep@v1.0.0/dep.go", "package dep\n\nfunc Twice(n int) int { return 2 * n }\n")
    return root


@pytest.mark.slow
def test_a_go_mod_requirement_is_downloaded_once_and_graded_offline(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("GOPROXY", f"file://{_go_proxy(tmp_path / 'proxy')}")  # the build's network, here a folder
    monkeypatch.setenv("GOSUMDB", "off")
    folder = _copy(tmp_path, GO)
    (folder / "repo" / "go.mod").write_text("module example.com/semver\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n")
    (folder / "repo" / "dep_test.go").write_text(
        'package semver\n\nimport (\n\t"testing"\n\n\t"example.com/dep"\n)\n\n'
        'func TestDep(t *testing.T) {\n\tif dep.Twice(21) != 42 {\n\t\tt.Fatal("dep")\n\t}\n}\n')
    task = tasks.load_folder(folder)
    assert "built in" in RepoKind().prepare(task, CFG)
    (built,) = [p for p in (cache / "envs").iterdir() if p.name.startswith("go-")]
    assert (built / "mod" / "example.com" / "dep@v1.0.0" / "dep.go").is_file()
    monkeypatch.setenv("GOPROXY", "off")  # grading never needs the proxy: the module is in the environment
    g = _grade(task, (EXAMPLES / GO / "gold.diff").read_text(), k=1)
    assert g.verdict == V.STABLE_PASS, (g.notes, [(a.status, a.reason) for a in g.attempts], g.failures())
    assert {c.check: c.transition for c in g.checks}["test:example.com/semver::TestDep"] == V.PRESERVED


# Go's build cache: warm at /repo, a private tmpfs copy per run, reused only by a candidate's own repeats --------
def _new_file(path: str, text: str) -> str:
    lines = text.splitlines(keepends=True)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join("+" + x for x in lines))


POISON = """package semver

import (
	"os"
	"path/filepath"
)

// Overwrite every entry of the build cache this run can reach (its own copy, and the read-only warm one).
func init() {
	for _, dir := range []string{os.Getenv("GOCACHE"), "/env/gocache", "/env/gocache-own"} {
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				os.WriteFile(p, []byte("garbage"), 0o644)
			}
			return nil
		})
		os.WriteFile(filepath.Join(dir, "00", "planted-a"), []byte("garbage"), 0o644)
	}
}
"""


def _tree_digest(folder: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode() + (p.read_bytes() if p.is_file() else b"/"))
    return h.hexdigest()


SPY = """package semver

import (
	"os"
	"path/filepath"
)

// Fail loudly if an entry planted by another run is in this run's build cache.
func init() {
	if _, err := os.Stat(filepath.Join(os.Getenv("GOCACHE"), "00", "planted-a")); err == nil {
		panic("a planted build cache entry reached this run")
	}
}
"""


@pytest.mark.slow
def test_a_candidate_that_poisons_its_build_cache_reaches_no_other(tmp_path, cache):
    """A candidate's code overwrites its Go build cache, plants an entry and tries the warm cache: the warm
    cache is unchanged, and the next candidate (which would panic on the planted entry) grades stable_pass."""
    task = tasks.load_folder(_copy(tmp_path, GO))
    RepoKind().prepare(task, CFG)
    (warm,) = [p / "gocache" for p in (cache / "envs").iterdir() if p.name.startswith("go-")]
    before = _tree_digest(warm)
    gold = (EXAMPLES / GO / "gold.diff").read_text()
    poisoned = _grade(task, gold + _new_file("poison.go", POISON), k=3)  # each repeat starts from the warm cache
    # (the test command exits 1 on every tree: two of its tripwire tests always fail)
    assert poisoned.verdict == V.STABLE_PASS and [a.exit_code for a in poisoned.attempts] == [1, 1, 1]
    assert _tree_digest(warm) == before

    spy = gold + _new_file("spy.go", SPY)
    g = _grade(task, spy, k=3)
    assert (g.verdict, g.resolved) == (V.STABLE_PASS, True), g.failures()
    assert _tree_digest(warm) == before


@pytest.mark.slow
def test_the_warm_cache_holds_no_literal_of_the_hidden_tests(tmp_path, cache):
    """Every candidate's sandbox gets the warm build cache, and a compiled test holds its literals: the
    expected values a sealed check keeps in loop's process. The cache is warmed without the hidden tests, so
    no hidden-only literal is in it (the visible tests' are), and the gold patch still resolves."""
    task = tasks.load_folder(_copy(tmp_path, GO))
    RepoKind().prepare(task, CFG)
    (warm,) = [p / "gocache" for p in (cache / "envs").iterdir() if p.name.startswith("go-")]
    blob = b"".join(p.read_bytes() for p in warm.rglob("*") if p.is_file())
    # an object names its source files; its literals sit end to end (so short ones are no evidence: "1.0.0-rc.1"
    # then "1.0.0" reads "1.0.0-rc.11"), but a long hidden-only one is
    assert b"/repo/version_test.go" in blob and b"/repo/compare_numeric_test.go" not in blob
    assert b"2.0.0-nightly.1 2.0.0-nightly.9 2.0.0-nightly.10 2.0.0-nightly.100" in (task.spec.hidden / "compare_numeric_test.go").read_bytes()
    assert b"2.0.0-nightly.1 2.0.0-nightly.9 2.0.0-nightly.10 2.0.0-nightly.100" not in blob
    g = _grade(task, (EXAMPLES / GO / "gold.diff").read_text(), k=1)
    assert (g.verdict, g.resolved) == (V.STABLE_PASS, True), g.failures()


@pytest.mark.slow
def test_a_base_tree_that_does_not_compile_still_prepares(tmp_path, cache):
    """A hidden test that calls what only a fix would add does not compile on the base tree. Warming is best
    effort, so the environment builds, and the grade says the base tree's report holds no tests."""
    folder = _copy(tmp_path, GO)
    (folder / "hidden" / "thing_test.go").write_text(
        'package semver\n\nimport "testing"\n\nfunc TestThing(t *testing.T) {\n\tif Thing() != 1 {\n'
        '\t\tt.Fatal("thing")\n\t}\n}\n')
    task = tasks.load_folder(folder)
    assert "built in" in RepoKind().prepare(task, CFG)
    (built,) = [p for p in (cache / "envs").iterdir() if p.name.startswith("go-")]
    assert any((built / "gocache").rglob("*-d"))  # the standard library's packages, at least
    with pytest.raises(tasks.TaskError, match="found no tests in the base tree's report .*undefined: Thing"):
        _grade(task, (EXAMPLES / GO / "gold.diff").read_text(), k=1)


@pytest.mark.slow
def test_base_runs_compile_nothing_and_a_candidate_only_its_patch(tmp_path, cache):
    """The warm cache holds the base tree compiled at /repo (its visible tests too; never the hidden ones, see
    above), so a run compiles only what the hidden tests touch and, for a candidate, its patched package: the
    same count in every repeat (each from the warm cache, none from what an earlier repeat's run wrote)."""
    import dataclasses
    import re

    from loop.kinds.repo import kind as repo, reference

    task = tasks.load_folder(_copy(tmp_path, GO))
    verbose = dataclasses.replace(task.spec, command=("go", "test", "-x", "-json", "./..."))  # -x: each step run
    task = dataclasses.replace(task, spec=verbose)
    env = repo._environment(task.spec, CFG)
    patched = repo_patch.fresh_copy(task.spec.tree, tmp_path / "patched")
    assert repo_patch.apply((EXAMPLES / GO / "gold.diff").read_text(), patched, repo_patch.TRUSTED) is None
    repo._stage_hidden(task.spec, patched)

    def compiles(res) -> int:
        assert res.outcomes and res.fault is None, res.stderr[-2000:]
        return len(re.findall(r"^\S*/compile ", res.stderr, re.M))

    counts = [compiles(repo.run_tests(task, CFG, env, tree, r, None))
              for tree, r in ((reference._base_tree(task.spec), 0), (reference._base_tree(task.spec), 1),
                              (patched, 0), (patched, 1))]
    assert counts == [2, 2, 2, 2], counts  # the package with its hidden tests, the test main


def test_whole_file_replies_are_bounded():
    """Diffing runs in loop's own process: a reply past the bounds is no candidate, not a long stall."""
    task = tasks.load(ROOT, JS)
    many = "".join(f"```js src/f{i}.js\nexport const x = {i};\n```\n" for i in range(repo_patch.WHOLE_FILES_MAX[0] + 1))
    assert RepoKind().extract(task, many) is None
    huge = "```js src/chars.js\n" + "// x\n" * (repo_patch.WHOLE_FILES_MAX[1] // 5 + 1) + "```\n"
    assert RepoKind().extract(task, huge) is None
    assert RepoKind().extract(task, "```js src/f.js\nexport const x = 1;\n```\n").startswith("diff --git a/src/f.js")


# two ways to make `assert.ok(false)` return (each in a try/catch, so the module loads whatever the lock does):
# replace `ok`, or make the array iterator that `ok(...args)` spreads its arguments through turn `false` into `true`
NOOP_OK = "+  try { assertModule.ok = quiet; assertModule.strict.ok = quiet; } catch {}\n"
TRUE_SPREAD = ("+  try { const it = Array.prototype[Symbol.iterator]; Array.prototype[Symbol.iterator] = function () "
               "{ return it.call(Array.isArray(this) && this[0] === false ? [true, ...this.slice(1)] : this); }; } "
               "catch {}\n")


@pytest.mark.slow
@pytest.mark.parametrize("how,sandboxed", [(NOOP_OK, True), (NOOP_OK, False), (TRUE_SPREAD, True)],
                         ids=["noop-ok", "noop-ok-no-sandbox", "true-spread"])
def test_node_assert_objects_are_read_only_in_every_test_child(how, sandboxed):
    """A patch that makes node's `assert.ok` pass `false` in every test child (the objects and the array iterator
    are shared with the test files): loop's preload has made them read-only before any candidate code, so the
    off-by-one the patch hides still fails on the hidden and the visible `assert.ok` (ROUND7, cause 3)."""
    diff = (ROOT / "tests" / "adversarial" / "repo_candidates" / JS / "r7_noop_assert_ok.diff").read_text()
    old = "+  assertModule.ok = quiet;\n+  assertModule.strict.ok = quiet;\n"
    assert old in diff
    diff = diff.replace(old, how + "+  // the hunk keeps its line count\n")
    g = RepoKind().grade(tasks.load(ROOT, JS), diff, SandboxConfig(enabled=sandboxed), Options(k=1, trials=0))
    assert g.verdict == V.STABLE_FAIL
    assert {f["check"] for f in g.failures()} == {"test:truncate unicode > max counts characters, not UTF-16 units",
                                                  "test:truncate > the result fits within max"}
