"""Issue 2: grading one candidate — seed 003's curated patches, seed 000's Friday patch, errors, the store."""

import pytest

import sqlite_utils

from conftest import EXAMPLES, ROOT, grade_json

PY = EXAMPLES / "merge_intervals_py"
PATCHES = ["correct_repair.py", "example_only.py", "descending_order.py", "unchanged.py"]


def _tests_only(loop_cli, db, patch, suite):
    return grade_json(loop_cli, "merge_intervals_py", PY / patch, "--suite", suite, "--trials", "0",
                      "--k", "1", "--db", db)


@pytest.mark.sandbox
def test_seed_003_smoke_suite_passes_three_of_four(loop_cli, db):
    verdicts = {p: _tests_only(loop_cli, db, p, "smoke")[1]["verdict"] for p in PATCHES}
    assert [p for p, v in verdicts.items() if v == "stable_pass"] == PATCHES[:3]
    assert verdicts["unchanged.py"] == "stable_fail"


@pytest.mark.sandbox
def test_seed_003_full_suite_passes_one_of_four(loop_cli, db):
    results = {p: _tests_only(loop_cli, db, p, "full") for p in PATCHES}
    passing = [p for p, (code, g) in results.items() if g["verdict"] == "stable_pass"]
    assert passing == ["correct_repair.py"]
    assert results["correct_repair.py"][0] == 0 and results["example_only.py"][0] == 1
    example = results["example_only.py"][1]["transitions"]
    assert example["fail_to_pass"] == {"repaired": 1, "still_broken": 2}
    ordering = results["descending_order.py"][1]
    assert ordering["transitions"]["fail_to_pass"] == {"repaired": 3, "still_broken": 0}
    assert ordering["transitions"]["pass_to_pass"] == {"preserved": 2, "regressed": 1}
    assert ordering["failures"][0]["check"] == "test:separated_ranges_stay_ascending"
    unchanged = results["unchanged.py"][1]
    assert unchanged["failures"] == [{"check": "no_change", "detail": "the candidate is identical to the baseline"}]
    assert unchanged["resolved"] is False


@pytest.mark.sandbox
def test_friday_patch_passes_goldens_fails_unsorted_test(loop_cli, db):
    """Seed 000's Friday patch assumes sorted input. The goldens (all sorted) run in every attempt and pass on
    the patch's own output; the unsorted named test and the permutation relation catch it. Passing checks are
    not stored (runs.db keeps a grade's failures), so the goldens are seen in the grade's attempts."""
    from loop import tasks
    from loop.grading.model import Options
    from loop.kinds import grade
    from loop.sandbox import SandboxConfig

    friday = EXAMPLES / "merge_intervals_cpp" / "friday_patch.cpp"
    code, g = grade_json(loop_cli, "merge_intervals_cpp", friday, "--trials", "20", "--k", "2", "--db", db)
    assert code == 1 and g["verdict"] == "stable_fail" and (g["passes"], g["fails"]) == (0, 2)
    checks = [f["check"] for f in g["failures"]]
    assert "test:unsorted_overlap" in checks and "relation:permutation" in checks
    assert not [c for c in checks if c.startswith("golden:")]
    stored = {r["check"]: r["kind"] for r in sqlite_utils.Database(db).query(
        'select "check", kind from checks where candidate_id = ? and passed = 0', [g["candidate_id"]])}
    assert stored["test:unsorted_overlap"] == "test" and stored["relation:permutation"] == "relation"
    assert "golden" not in stored.values()

    task = tasks.load(ROOT, "merge_intervals_cpp")
    cases = sorted(f"golden:{gd.case}" for gd in task.goldens)
    assert cases == ["golden:case_001", "golden:case_002", "golden:case_003"]
    graded = grade(task, friday.read_text(), SandboxConfig(enabled=True), Options(k=2, trials=0))
    assert graded.verdict == "stable_fail" and len(graded.attempts) == 2
    for attempt in graded.attempts:
        goldens = {c.check: c for c in attempt.checks if c.category == "golden"}
        assert sorted(goldens) == cases, (attempt.repeat, sorted(goldens))  # each golden ran in each attempt
        assert all(c.passed and c.actual == c.expected for c in goldens.values())  # on the patch's own output
        assert (goldens["golden:case_001"].input, goldens["golden:case_001"].actual) == \
            ([[1, 3], [2, 6], [8, 10]], [[1, 6], [8, 10]])
        assert "test:unsorted_overlap" in [c.check for c in attempt.checks if not c.passed]


@pytest.mark.sandbox
def test_cpp_reference_passes_and_build_error_is_build(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_cpp", EXAMPLES / "merge_intervals_cpp" / "correct_repair.cpp",
                         "--trials", "0", "--k", "1", "--db", db)
    assert code == 0 and g["verdict"] == "stable_pass"
    broken = tmp_path / "broken.cpp"
    broken.write_text('#include "merge_intervals.hpp"\nint unused_var_triggers_werror() { int x; return 0; }\n'
                      "std::vector<std::pair<int,int>> merge_intervals(std::vector<std::pair<int,int>> v) { return v }\n")
    code, g = grade_json(loop_cli, "merge_intervals_cpp", broken, "--k", "1", "--db", db)
    assert code == 1 and [f["check"] for f in g["failures"]] == ["build"]
    assert "error" in g["failures"][0]["detail"]


@pytest.mark.sandbox
def test_python_import_error_is_build(loop_cli, db, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def merge_intervals(x):\n    return x +\n")
    code, g = grade_json(loop_cli, "merge_intervals_py", bad, "--k", "1", "--db", db)
    assert code == 1 and g["failures"][0]["check"] == "build" and "SyntaxError" in g["failures"][0]["detail"]
    wrong_name = tmp_path / "wrong_name.py"
    wrong_name.write_text("def merge(x):\n    return x\n")
    code, g = grade_json(loop_cli, "merge_intervals_py", wrong_name, "--k", "1", "--db", db)
    assert g["failures"][0]["check"] == "build" and "merge_intervals" in g["failures"][0]["detail"]


@pytest.mark.sandbox
def test_grade_is_stored_with_checks_and_attempts(loop_cli, db):
    code, g = _tests_only(loop_cli, db, "descending_order.py", "full")
    rows = sqlite_utils.Database(db)
    cand = rows["candidates"].get(g["candidate_id"])
    assert cand["verdict"] == "stable_fail" and len(cand["source_sha256"]) == 64 and cand["created_at"]
    tests = list(rows.query("select * from checks where candidate_id = ? and kind = 'test' and repeat is null",
                            [g["candidate_id"]]))
    assert {t["transition"] for t in tests} == {"repaired", "preserved", "regressed"}
    regressed = [t for t in tests if t["transition"] == "regressed"][0]
    assert regressed["baseline"] == "pass" and regressed["candidate"] == "fail"
    assert regressed["input"] == "[[10, 12], [1, 2], [5, 6]]" and regressed["expected"] and regressed["actual"]
    assert rows.execute("pragma journal_mode").fetchone()[0] == "wal"


def test_bad_input_is_one_line_exit_2_and_nothing_written(loop_cli, db, tmp_path):
    cases = [
        ("no_such_task", PY / "correct_repair.py", "unknown task 'no_such_task'"),
        ("merge_intervals_py", tmp_path / "missing.py", "missing.py: candidate file not found"),
    ]
    empty = tmp_path / "empty.py"
    empty.write_text("")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# caf\xe9\n")
    cases += [("merge_intervals_py", empty, "empty.py: candidate file is empty"),
              ("merge_intervals_py", latin, "latin.py: candidate file is not UTF-8")]
    for task, path, message in cases:
        code, out = loop_cli_capture(task, path, db)
        assert code == 2 and message in out and len(out.strip().splitlines()) == 1
    assert not db.exists()


def loop_cli_capture(task, path, db):
    from click.testing import CliRunner

    from loop.cli import cli

    result = CliRunner().invoke(cli, ["grade", task, str(path), "--db", str(db)])
    return result.exit_code, result.output


@pytest.mark.sandbox
def test_malformed_task_and_broken_polarity_are_refused(loop_cli, task_copy, db):
    folder, cfg = task_copy("merge_intervals_py", "broken_py")
    (folder / "task.toml").write_text("bogus = 1\n" + (folder / "task.toml").read_text())
    code, out = loop_cli("grade", "broken_py", PY / "correct_repair.py", config=cfg)
    assert code == 2 and "task.toml: unknown key 'bogus'" in out
    folder, cfg = task_copy("merge_intervals_py", "polarity_py")
    tests = (folder / "tests.json").read_text().replace('"kind": "p2p", "suites": ["smoke", "full"]',
                                                         '"kind": "f2p", "suites": ["smoke", "full"]')
    (folder / "tests.json").write_text(tests)
    code, out = loop_cli("tasks", "check", "polarity_py", config=cfg)
    assert code == 2 and "polarity_py: f2p test 'existing_overlap' passes on the baseline" in out
    code, out = loop_cli("grade", "polarity_py", PY / "correct_repair.py", config=cfg)
    assert code == 2 and "task refused" in out and "existing_overlap" in out
    assert not (cfg.parent.parent / "runs.db").exists()


@pytest.mark.sandbox
def test_tasks_list_and_check(loop_cli):
    code, out = loop_cli("tasks", "list", "--json")
    names = {t["name"] for t in __import__("json").loads(out)}
    assert names == {"merge_intervals_py", "merge_intervals_cpp", "dedupe_words_py", "dedupe_words_cpp", "repo_ledger_py",
                     "repo_strkit_js", "repo_semver_go"}
    code, out = loop_cli("tasks", "check")
    assert code == 0 and out.count("ok ") == 7


def test_tasks_list_counts_named_tests_in_aligned_columns(loop_cli):
    """"tests" are the tests a task names, whatever its kind; a repo task that names no pass-to-pass tests
    says "+ passing" (every test passing on its base tree is one); columns line up whatever the names."""
    code, out = loop_cli("tasks", "list", "--json")
    rows = {r["name"]: r for r in __import__("json").loads(out)}
    assert (rows["repo_ledger_py"]["tests"], rows["repo_ledger_py"]["pass_to_pass"]) == (4, None)
    assert rows["merge_intervals_py"]["pass_to_pass"] is not None
    code, out = loop_cli("tasks", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 7
    assert len({line.index(" tests") for line in lines}) == 1 and len({line.index("goldens") for line in lines}) == 1
    assert " 4 tests + passing" in next(x for x in lines if x.startswith("repo_ledger_py "))


@pytest.mark.sandbox
def test_no_sandbox_is_loud_recorded_and_still_secret_free(loop_cli, db, tmp_path, monkeypatch):
    monkeypatch.setenv("LOOP_API_KEY", "sk-canary-no-sandbox")
    leak = tmp_path / "leak.py"
    leak.write_text((PY / "correct_repair.py").read_text() + '''
import os
_merge = merge_intervals


def merge_intervals(intervals):
    if any("canary" in v for v in os.environ.values()):
        raise RuntimeError("saw the key")
    return _merge(intervals)
''')
    code, out = loop_cli("grade", "merge_intervals_py", leak, "--no-sandbox", "--k", "1", "--trials", "20", "--db", db)
    assert code == 0 and "UNSANDBOXED" in out and "stable_pass" in out
    row = list(sqlite_utils.Database(db)["candidates"].rows)[0]
    assert row["sandboxed"] == 0
    code, out = loop_cli("grade", "merge_intervals_cpp", EXAMPLES / "merge_intervals_cpp" / "friday_patch.cpp",
                         "--no-sandbox", "--k", "1", "--trials", "0", "--db", db)
    assert code == 1 and "test:unsorted_overlap" in out


@pytest.mark.sandbox
def test_a_grade_leaves_no_candidate_files_behind(monkeypatch):
    """A candidate's staged source, its binary and its sanitizer build are deleted when its grade is made,
    not when the process exits: a 20,000-candidate batch (or one killed halfway) would keep them all."""
    from pathlib import Path

    from loop import tasks
    from loop.grading.model import Options
    from loop.kinds import grade
    from loop.sandbox import SandboxConfig, process

    made = []
    real = process.make_scratch

    def recording(prefix):
        made.append(real(prefix))
        return made[-1]

    monkeypatch.setattr(process, "make_scratch", recording)
    root = Path(__file__).resolve().parents[2]
    for name in ("merge_intervals_py", "merge_intervals_cpp"):
        task = tasks.load(root, name)
        g = grade(task, task.reference, SandboxConfig(enabled=True), Options(k=2, trials=5))
        assert g.verdict == "stable_pass", (name, g.verdict)
    mine = [p for p in made if "candidate" in p.name or p.name.startswith("loop-pp-")]
    assert any("asan" in p.name for p in mine) and any(p.name.startswith("loop-candidate") for p in mine)
    assert [p for p in mine if p.exists()] == []
    assert all(p.exists() for p in made if p.name.startswith(("loop-reference", "loop-baseline")))  # kept per process
