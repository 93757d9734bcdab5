"""The `repo` kind: a diff to a real repository, graded by its own pytest suite in the sandbox, per test id."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import threading
from pathlib import Path

import pytest

from conftest import ROOT, grade_json
from loop import kinds, tasks
from loop import verdicts as V
from loop.kinds.task import task_digest
from loop.grading.model import Options
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo.kind import RepoKind
from loop.kinds.repo.results import parse_go_test_json, parse_junit
from loop.sandbox import SandboxConfig

TASK = "repo_ledger_py"
EXAMPLES = ROOT / "harness" / "examples" / TASK
CFG = SandboxConfig()


def _task(folder: Path | None = None):
    return tasks.load_folder(folder or ROOT / "harness" / "tasks" / TASK)


def _edit_toml(folder: Path, old: str, new: str) -> None:
    toml = folder / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new))


# the shipped task, through `loop grade` ----------------------------------------------------------------
def test_registered_and_loaded():
    assert "repo" in kinds.names()
    task = _task()
    assert task.kind == "repo" and len(task.spec.fail_to_pass) == 4 and task.spec.pass_to_pass is None


def task_f2p() -> tuple[str, ...]:
    return _task().spec.fail_to_pass


@pytest.mark.slow
def test_three_curated_patches_grade_through_loop_grade(loop_cli, db):
    code, gold = grade_json(loop_cli, TASK, EXAMPLES / "gold.diff", "--k", "2", "--db", db)
    assert (code, gold["verdict"], gold["resolved"]) == (0, V.STABLE_PASS, True)
    assert gold["transitions"] == {"fail_to_pass": {"repaired": 4, "still_broken": 0},
                                   "pass_to_pass": {"preserved": 50, "regressed": 0}}

    code, noop = grade_json(loop_cli, TASK, EXAMPLES / "exempt_shortcut.diff", "--k", "2", "--db", db)
    assert (code, noop["verdict"]) == (1, V.STABLE_FAIL)
    assert noop["transitions"] == {"fail_to_pass": {"repaired": 0, "still_broken": 4},
                                   "pass_to_pass": {"preserved": 50, "regressed": 0}}

    code, bad = grade_json(loop_cli, TASK, EXAMPLES / "add_half_truncate.diff", "--k", "2", "--db", db)
    assert (code, bad["verdict"]) == (1, V.STABLE_FAIL)
    assert bad["transitions"] == {"fail_to_pass": {"repaired": 3, "still_broken": 1},
                                  "pass_to_pass": {"preserved": 49, "regressed": 1}}
    assert {f["check"] for f in bad["failures"]} == {
        "test:tests/test_tax.py::test_refund_tax_is_negative",
        "test:tests/test_tax_rounding.py::test_refund_half_cent_rounds_away_from_zero"}
    # issue 41: the checks are sealed (their literals never enter the sandbox), the visible files' too: the task
    # names no pass_to_pass, so every test is graded
    assert next(f["detail"] for f in bad["failures"] if "negative" in f["check"]) == (
        "sealed assertion at tests/test_tax.py:37: expected -99 (kept outside the sandbox), got -98")
    assert next(f["detail"] for f in bad["failures"] if "rounding" in f["check"]).startswith("sealed assertion at ")
    assert {bad["decided_by"][f"test:{t}"] for t in task_f2p()} == {"sealed"}
    # a visible test: its sealed check failed it (tripwires in its own file guard a passing one's report)
    assert bad["decided_by"]["test:tests/test_tax.py::test_refund_tax_is_negative"] == "sealed"

    # one checks row per test id, with both outcomes and the transition
    con = sqlite3.connect(db)
    rows = con.execute('SELECT "check", test_kind, baseline, candidate, transition FROM checks '
                       'WHERE "check" = ?', ("test:tests/test_tax.py::test_refund_tax_is_negative",)).fetchall()
    assert ("test:tests/test_tax.py::test_refund_tax_is_negative", "p2p", "pass", "fail", "regressed") in rows


@pytest.mark.sandbox
def test_polarity_of_the_shipped_task_and_a_broken_copy(tmp_path):
    assert RepoKind().polarity(_task(), CFG) == []
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    # an f2p id that passes on the base tree, and an explicit p2p id that fails there
    _edit_toml(folder, '"tests/test_tax_rounding.py::test_half_cent_rounds_up",',
               '"tests/test_tax_rounding.py::test_half_cent_rounds_up", "tests/test_tax.py::test_rates",')
    _edit_toml(folder, "# pass_to_pass omitted", 'pass_to_pass = ["tests/test_tax_rounding.py::test_invoice_tax_on_half_cent"]\n#')
    problems = RepoKind().polarity(_task(folder), CFG)
    assert any("f2p test 'tests/test_tax.py::test_rates' passes on the base tree" in p for p in problems)
    assert any("p2p test 'tests/test_tax_rounding.py::test_invoice_tax_on_half_cent' does not pass" in p
               for p in problems)


@pytest.mark.sandbox
def test_a_gold_patch_that_fixes_nothing_fails_polarity(tmp_path):
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    shutil.copyfile(EXAMPLES / "exempt_shortcut.diff", folder / "gold.patch")
    problems = RepoKind().polarity(_task(folder), CFG)
    assert problems == [f"{TASK}: the gold patch does not pass "
                        "(test:tests/test_tax_rounding.py::test_half_cent_rounds_up, "
                        "test:tests/test_tax_rounding.py::test_half_cent_rounds_up_on_odd_cents, "
                        "test:tests/test_tax_rounding.py::test_refund_half_cent_rounds_away_from_zero)"]


def test_task_digest_covers_the_repository(tmp_path):
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    before = task_digest(folder), _task(folder).spec.digest
    (folder / "repo" / "ledger" / "tax.py").write_text("# changed\n")
    after = task_digest(folder), _task(folder).spec.digest
    assert before[0] != after[0] and before[1] != after[1]


# candidates that never run ------------------------------------------------------------------------------
GOLD = (EXAMPLES / "gold.diff").read_text()


def _grade(diff: str | None, task=None, k: int = 1):
    return RepoKind().grade(task or _task(), diff, CFG, Options(k=k, trials=0))


def _only_failure(grade) -> dict:
    assert grade.verdict == V.STABLE_FAIL
    assert len(grade.failures()) == 1
    return grade.failures()[0]


@pytest.mark.sandbox
def test_patch_that_does_not_apply_shows_the_rejected_hunk():
    stale = GOLD.replace("-    return round(cents * rate_for(category) / 100)",
                         "-    return round(cents * rate_for(category) / 1000)")
    failure = _only_failure(_grade(stale))
    assert failure["check"] == repo_patch.PATCH_DOES_NOT_APPLY
    assert "ledger/tax.py.rej" in failure["detail"] and "/ 1000)" in failure["detail"]


@pytest.mark.sandbox
def test_garbage_with_diff_headers_does_not_apply():
    failure = _only_failure(_grade("--- a/ledger/tax.py\n+++ b/ledger/tax.py\n@@ nonsense @@\n+x\n"))
    assert failure["check"] == repo_patch.PATCH_DOES_NOT_APPLY


@pytest.mark.parametrize("diff", [
    "--- a/tests/test_tax.py\n+++ b/tests/test_tax.py\n@@ -1,1 +1,1 @@\n-import pytest\n+import pytest  # x\n",
    # a hidden test, added as a new file (it does not exist in the tree the model sees)
    "diff --git a/tests/test_tax_rounding.py b/tests/test_tax_rounding.py\nnew file mode 100644\n"
    "--- /dev/null\n+++ b/tests/test_tax_rounding.py\n@@ -0,0 +1 @@\n+def test_x(): pass\n",
    # renaming a source file onto a test path
    "diff --git a/ledger/tax.py b/tests/tax.py\nsimilarity index 100%\nrename from ledger/tax.py\nrename to tests/tax.py\n",
])
def test_patches_that_touch_tests_are_refused(diff):
    assert _only_failure(_grade(diff))["check"] == repo_patch.TOUCHES_TESTS


@pytest.mark.parametrize("diff", [
    "--- a/../../escaped.txt\n+++ b/../../escaped.txt\n@@ -0,0 +1 @@\n+owned\n",
    "--- /dev/null\n+++ /tmp/escaped.txt\n@@ -0,0 +1 @@\n+owned\n",
    "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n",
    "diff --git a/ledger/tax.py b/ledger/tax.py\nold mode 100644\nnew mode 120000\n",
    "diff --git a/ledger/tax.py b/../x.py\nrename from ledger/tax.py\nrename to ../x.py\n",
])
def test_patches_that_leave_the_repository_are_refused(diff):
    assert _only_failure(_grade(diff))["check"] == repo_patch.OUTSIDE_REPOSITORY


def test_patch_through_a_symlink_in_the_tree_is_refused(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / "pkg" / "out").symlink_to(outside)
    diff = "--- /dev/null\n+++ b/pkg/out/evil.py\n@@ -0,0 +1 @@\n+owned\n"
    refusal = repo_patch.refuse(diff, tree, ["tests/"], [])
    assert refusal.check == repo_patch.OUTSIDE_REPOSITORY and "symlink" in refusal.detail


@pytest.mark.sandbox
def test_git_apply_writes_nothing_outside_even_past_our_checks(tmp_path):
    """The second fence: git apply itself, on the copy, refuses a `../` path the first fence would refuse."""
    tree = tmp_path / "work" / "tree"
    tree.mkdir(parents=True)
    (tree / "a.txt").write_text("a\n")
    diff = "diff --git a/../escaped.txt b/../escaped.txt\nnew file mode 100644\n--- /dev/null\n" \
           "+++ b/../escaped.txt\n@@ -0,0 +1 @@\n+owned\n"
    assert repo_patch.apply(diff, tree, repo_patch.TRUSTED) is not None
    assert not (tmp_path / "work" / "escaped.txt").exists()
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["tree"]


@pytest.mark.sandbox
def test_applying_never_touches_the_task_folder():
    before = task_digest(ROOT / "harness" / "tasks" / TASK)
    assert _grade(GOLD).verdict == V.STABLE_PASS
    assert task_digest(ROOT / "harness" / "tasks" / TASK) == before


def test_no_diff_is_no_code():
    assert _only_failure(_grade(None))["check"] == V.NO_CODE


# grading details ----------------------------------------------------------------------------------------
def _flaky_task(tmp_path) -> Path:
    """A copy of the shipped task with one p2p test whose outcome depends on PYTHONHASHSEED (varies per repeat)."""
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    (folder / "repo" / "tests" / "test_hashseed.py").write_text(
        "import os\n\ndef test_depends_on_hash_seed():\n    assert int(os.environ['PYTHONHASHSEED']) % 2 == 0\n")
    return folder


@pytest.mark.sandbox
def test_a_test_varying_on_the_base_tree_is_an_unstable_fixture(tmp_path):
    grade = _grade(GOLD, _task(_flaky_task(tmp_path)), k=3)  # seeds 1000, 8919, 16838: even, odd, even
    assert grade.verdict == V.STABLE_PASS
    row = next(c for c in grade.checks if c.check == "test:tests/test_hashseed.py::test_depends_on_hash_seed")
    assert row.excluded and row.transition is None
    assert any("unstable fixture: test:tests/test_hashseed.py::test_depends_on_hash_seed" in n for n in grade.notes)


@pytest.mark.sandbox
def test_a_candidate_that_breaks_collection_fails_every_test(tmp_path):
    broken = GOLD.replace("+    exact = Decimal(cents)", "+    exact = Decimal(cents")
    grade = _grade(broken)
    assert grade.verdict == V.STABLE_FAIL
    t = grade.transitions()
    assert t["fail_to_pass"]["repaired"] == 0 and t["pass_to_pass"]["preserved"] < 50


@pytest.mark.sandbox
def test_the_sandbox_has_no_network_while_tests_run(tmp_path):
    """The task's tests try a listener on the host's 127.0.0.1 (reachable from any process sharing the host's
    network, offline or not): inside the sandbox the connection is refused and the listener sees nobody."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                accepted.append(listener.accept())
            except (socket.timeout, OSError):
                pass

    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    (folder / "repo" / "tests" / "test_net.py").write_text(
        "import socket\n\ndef test_no_network():\n"
        "    try:\n"
        f"        socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'hi')\n"
        "        ok = True\n"
        "    except OSError:\n        ok = False\n    assert not ok\n")
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        grade = _grade(GOLD, _task(folder))
    finally:
        stop.set()
        thread.join()
        listener.close()
        for conn, _ in accepted:
            conn.close()
    assert accepted == [], f"{len(accepted)} connection(s) from the sandbox reached the host's 127.0.0.1:{port}"
    rows = {c.check: c for c in grade.checks}
    row = rows["test:tests/test_net.py::test_no_network"]  # a p2p test: it passed on the base tree too
    assert (row.baseline, row.candidate, row.transition) == (V.PASS, V.PASS, V.PRESERVED)


def test_missing_toolchain_is_inconclusive_and_named(tmp_path):
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    _edit_toml(folder, 'parser = "junit"', 'parser = "junit"\ntoolchain = ["no-such-node-xyz"]')
    task = _task(folder)
    grade = _grade(GOLD, task, k=2)
    assert grade.verdict == V.INCONCLUSIVE and V.exit_status(grade.verdict) == V.EXIT_INCONCLUSIVE
    assert grade.notes == [f"{TASK}: toolchain 'no-such-node-xyz' is not installed on this machine; "
                           "grades are inconclusive until it is"]
    assert RepoKind().polarity(task, CFG) == []
    assert kinds.unavailable(task) == grade.notes[0]  # what `loop tasks check` prints for it


def test_bad_task_folders_are_one_line_errors(tmp_path):
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    _edit_toml(folder, 'parser = "junit"', 'parser = "xml-ish"')
    with pytest.raises(tasks.TaskError, match="parser 'xml-ish' is not one of"):
        _task(folder)


@pytest.mark.sandbox
def test_a_report_without_tests_is_a_task_error(tmp_path):
    folder = tmp_path / TASK
    shutil.copytree(ROOT / "harness" / "tasks" / TASK, folder)
    _edit_toml(folder, '"--junitxml={report}", "{tests}"', '"--junitxml={report}", "-k", "no_test_matches_this"')
    (problem,) = RepoKind().polarity(_task(folder), CFG)  # a problem of the task, said as its check's line
    assert "junit parser found no tests" in problem


# prompt and extraction ----------------------------------------------------------------------------------
def test_prompt_shows_report_context_and_command_never_hidden_tests_or_gold():
    task = _task()
    system, user = (m["content"] for m in RepoKind().prompt(task, CFG))
    assert "unified diff" in system
    assert "half a cent must round away" in user
    assert "20 |     return round(cents * rate_for(category) / 100)" in user  # numbered context
    assert "python3 -m pytest" in user
    hidden = (task.path / "hidden" / "tests" / "test_tax_rounding.py").read_text()
    assert "test_half_cent_rounds_up" not in user and hidden[:60] not in user
    assert "ROUND_HALF_UP" not in user and "ROUND_HALF_UP" not in system


def test_extract_takes_the_fenced_diff_or_a_bare_one():
    kind = RepoKind()
    assert kind.extract(_task(), f"Here is the fix:\n\n```diff\n{GOLD}```\nDone.") == GOLD
    assert kind.extract(_task(), GOLD) == GOLD
    assert kind.extract(_task(), "I think you should round half up.") is None
    assert kind.extract(_task(), "```python\nprint(1)\n```") is None


# parsers ------------------------------------------------------------------------------------------------
def test_junit_ids_follow_pytest_node_ids(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("")
    xml = ('<testsuites><testsuite name="pytest">'
           '<testcase classname="tests.test_a" name="test_x[1-2]"/>'
           '<testcase classname="tests.test_a.TestK" name="test_y"><failure message="boom">tb</failure></testcase>'
           '<testcase classname="tests.test_a" name="test_z"><skipped message="s"/></testcase>'
           '<testcase classname="suite" name="node test"><error message="err"/></testcase>'
           '</testsuite></testsuites>')
    got = parse_junit(xml, tmp_path)
    assert {k: (v.status, v.message) for k, v in got.items()} == {
        "tests/test_a.py::test_x[1-2]": ("pass", ""), "tests/test_a.py::TestK::test_y": ("fail", "boom"),
        "tests/test_a.py::test_z": ("skip", "skipped"), "suite::node test": ("fail", "err")}
    assert parse_junit("<not xml", tmp_path) is None


def test_go_test_json_takes_the_last_action_per_test():
    events = [{"Action": "run", "Package": "p", "Test": "TestA"}, {"Action": "pass", "Package": "p", "Test": "TestA"},
              {"Action": "fail", "Package": "p", "Test": "TestB"}, {"Action": "pass", "Package": "p"}]
    got = parse_go_test_json("\n".join(json.dumps(e) for e in events) + "\nnot json\n")
    assert {k: v.status for k, v in got.items()} == {"p::TestA": "pass", "p::TestB": "fail"}
    assert parse_go_test_json("garbage") is None


@pytest.mark.parametrize("text, why", [
    ("Traceback (most recent call last):\n  File \"/repo/tests/test_c.py\", line 1, in <module>\n"
     "    raise ValueError(\"boom at import\")\nValueError: boom at import\n", "ValueError: boom at import"),
    ("ImportError while importing test module 'tests/test_c.py'.\ntest_c.py:1: in <module>\n    import nothing\n"
     "E   ModuleNotFoundError: No module named 'nothing'", "ModuleNotFoundError: No module named 'nothing'"),
])
def test_a_collection_failure_says_why_in_either_traceback_style(text, why):
    """loop runs pytest with --tb=native: a module that fails at import is reported as a Python traceback, whose
    last line says why (pytest's own style says it on its last `E` line)."""
    from xml.sax.saxutils import escape

    xml = ('<?xml version="1.0"?><testsuites><testsuite name="pytest" errors="1" tests="1"><testcase classname="" '
           f'name="tests.test_c"><error message="collection failure">{escape(text)}</error></testcase></testsuite>'
           '</testsuites>')
    (outcome,) = parse_junit(xml).values()
    assert outcome.status == V.FAIL and outcome.message == f"collection failure ({why})", outcome
