"""loop's `resolved` beside SWE-bench's own grading functions (issue 44): the fixture of published SWE-bench Lite
rows bench/bench_swebench_grading.py grades, and, in CI time, the same comparison on a small instance made here:
each prediction applied as SWE-bench's harness applies it, its test log fed to swebench 5.0.2's `get_eval_report`
(in .venv-swebench), against `loop grade --predictions`."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest
from test_swebench import _grade, _import, _pred, _preds, project  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_swebench_grading", ROOT / "bench" / "bench_swebench_grading.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

GRADED = {"repo", "instance_id", "base_commit", "environment_setup_commit", "created_at", "version", "image",
          "log_parser", "eval_type", "patch", "test_patch", "problem_statement", "FAIL_TO_PASS", "PASS_TO_PASS"}


def test_the_fixture_holds_eight_published_rows_from_three_projects():
    rows = [json.loads(line) for line in bench.ROWS.read_text().splitlines()]
    assert len(rows) >= 8 and len(Counter(r["repo"] for r in rows)) >= 3
    for row in rows:
        assert set(row) == GRADED, row["instance_id"]
        assert row["FAIL_TO_PASS"] and row["log_parser"].startswith("parse_log_"), row["instance_id"]
        assert row["image"] == ("swebench/sweb.eval.x86_64." + row["instance_id"].replace("__", "_1776_")
                                + ":latest"), row["instance_id"]
        preds = bench.predictions(row, *bench.WRONG[row["instance_id"]])
        assert preds["gold"] == row["patch"] and preds["empty"] == ""
        assert preds["wrong"] != row["patch"] and len(preds["wrong"].splitlines()) == len(row["patch"].splitlines())
        # test_edit is test_patch with its added asserts made true, nothing else (sqlfluff-1625 adds none: an
        # edit of an expected string, so its test_edit is test_patch as published, a test edit and no fix)
        changed = [(a, b) for a, b in zip(row["test_patch"].splitlines(), preds["test_edit"].splitlines()) if a != b]
        added_asserts = [a for a in row["test_patch"].splitlines() if a.startswith("+") and "assert " in a]
        assert len(changed) == len(added_asserts), row["instance_id"]
        assert all(b == a.replace("assert ", "assert True or ", 1) for a, b in changed), row["instance_id"]
    # cut ids as published (the parser's first-space cut), which loop must grade as SWE-bench does
    assert "test/dialects/ansi_test.py::test__dialect__ansi_multiple_semicolons[select" in \
        next(r for r in rows if r["instance_id"] == "sqlfluff__sqlfluff-1517")["FAIL_TO_PASS"]


def test_test_files_are_the_files_a_diff_leaves():
    renamed = ("diff --git a/t/new_test.py b/t/new_test.py\nnew file mode 100644\n--- /dev/null\n+++ b/t/new_test.py\n"
               "@@ -0,0 +1 @@\n+x = 1\ndiff --git a/t/a.py b/t/a_test.py\nsimilarity index 100%\n"
               "rename from t/a.py\nrename to t/a_test.py\n")
    assert bench.test_files(renamed) == ["t/new_test.py", "t/a_test.py"]


@pytest.mark.sandbox
def test_loop_resolved_equals_swebench_get_eval_report(loop_cli, project):
    """gold, empty, wrong and test-editing predictions of an instance whose test_patch adds a test file and
    edits two: loop's `resolved` against swebench's `get_eval_report` on the log of the same prediction."""
    from loop import tasks
    from loop.kinds.repo import env as repo_env

    row = dict(project["rows"][0], log_parser="parse_log_pytest", eval_type="pass_and_fail", image="-", version="0")
    assert _import(loop_cli, project)[0] == 0
    preds = bench.predictions(row, "+        return lo", "+        return hi - 10 if x > -10 else hi")
    spec = tasks.load_folder(project["root"] / "harness" / "tasks" / row["instance_id"]).spec
    python = spec.python or __import__("sys").executable
    env = repo_env.ensure(spec.environment, python)
    work = project["tmp"] / "swebench"
    cases = []
    for kind, patch in preds.items():
        log = work / f"{kind}.log"
        log.parent.mkdir(exist_ok=True)
        log.write_text(bench.swebench_log(row, project["repos"] / "acme__calc" / ".git", patch, work, python,
                                          [str(env.path), *spec.paths]))
        cases.append({"row": row, "kind": kind, "patch": patch, "log": str(log)})
    theirs = dict(zip(preds, bench.swebench_grade(cases)))
    code, ours = 0, {}
    for kind, patch in preds.items():  # one model per kind: each is its own batch
        code, got = _grade(loop_cli, project, _preds(project, f"{kind}.jsonl", [_pred(row["instance_id"], patch, kind)]))
        ours[kind] = got[row["instance_id"]]
    assert theirs["gold"] and ours["gold"]["resolved"], (theirs, ours["gold"])
    for kind in ("empty", "wrong"):
        assert not theirs[kind] and not ours[kind]["resolved"], (kind, theirs, ours[kind])
    # the one difference: SWE-bench's eval script resets test_patch's files with `git checkout <base> -- files`,
    # which refuses them all when one (tests/test_clamp.py) is new, and then test_patch does not apply over the
    # model's copies, so the model's own tests run; loop puts test_patch's files as test_patch makes them
    assert theirs["test_edit"] and not ours["test_edit"]["resolved"], (theirs, ours["test_edit"])
    assert ours["test_edit"]["reason"] == "touches_tests"
