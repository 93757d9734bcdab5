"""Issue 4: repeat-k triage with real nondeterministic candidates, infra that cannot be faked, quarantine."""

import pytest

import datetime as dt
from pathlib import Path

import sqlite_utils

from conftest import EXAMPLES, grade_json

REFERENCE = (EXAMPLES / "merge_intervals_py" / "correct_repair.py").read_text()

# Decides once per process whether to be wrong: str hashes follow PYTHONHASHSEED, which differs per repeat.
FLAKY = REFERENCE + '''
_WRONG = hash("loop-flaky") % 2 == 1
_correct = merge_intervals


def merge_intervals(intervals):
    out = _correct(intervals)
    return out[::-1] if _WRONG and len(out) > 1 else out
'''

VARYING = REFERENCE + '''
import sys

_correct = merge_intervals


def merge_intervals(intervals):
    print({"alpha", "beta", "gamma", "delta", "epsilon"}, file=sys.stderr)
    return _correct(intervals)
'''

PRETENDS_INFRA = '''
import sys


def merge_intervals(intervals):
    print("HTTP 429 Too Many Requests", file=sys.stderr)
    print("OSError: [Errno 28] No space left on device", file=sys.stderr)
    raise RuntimeError("429 rate limited; no space left on device")
'''


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.sandbox
def test_flaky_candidate_is_flaky_at_k10(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_py", _write(tmp_path, "flaky.py", FLAKY),
                         "--k", "10", "--trials", "0", "--db", db)
    assert code == 1 and g["verdict"] == "flaky"
    assert 0 < g["passes"] < 10 and g["passes"] + g["fails"] == 10 and len(g["attempts"]) == 10
    statuses = {a["status"] for a in g["attempts"]}
    assert statuses == {"pass", "fail"}
    rows = sqlite_utils.Database(db)
    assert rows["attempts"].count_where("candidate_id = ?", [g["candidate_id"]]) == 10
    envs = {r["env"] for r in rows["attempts"].rows_where("candidate_id = ?", [g["candidate_id"]])}
    assert len(envs) == 10 and all('"LC_ALL": "C"' in e and '"TZ": "UTC"' in e for e in envs)


@pytest.mark.sandbox
def test_varying_output_is_stable_pass_varying_with_warning(loop_cli, db, tmp_path):
    code, out = loop_cli("grade", "merge_intervals_py", _write(tmp_path, "varying.py", VARYING),
                         "--k", "5", "--trials", "0", "--db", db)
    assert code == 0 and "stable_pass_varying" in out and "normalise the output" in out
    code, g = grade_json(loop_cli, "merge_intervals_py", tmp_path / "varying.py", "--k", "5", "--trials", "0", "--db", db)
    assert g["verdict"] == "stable_pass_varying" and g["digests"] > 1 and g["resolved"] is True


@pytest.mark.sandbox
def test_reference_is_stable_pass_single_digest(loop_cli, db):
    code, g = grade_json(loop_cli, "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "correct_repair.py",
                         "--k", "3", "--trials", "50", "--db", db)
    assert code == 0 and g["verdict"] == "stable_pass" and g["digests"] == 1 and g["k"] == 3


@pytest.mark.sandbox
def test_printing_infra_words_is_stable_fail(loop_cli, db, tmp_path):
    code, g = grade_json(loop_cli, "merge_intervals_py", _write(tmp_path, "liar.py", PRETENDS_INFRA),
                         "--k", "3", "--trials", "0", "--db", db)
    assert code == 1 and g["verdict"] == "stable_fail" and g["infra"] == 0


def test_sandbox_unavailable_is_inconclusive(loop_cli, task_copy, tmp_path):
    _, cfg = task_copy("merge_intervals_py")
    cfg.write_text(cfg.read_text() + '\n[sandbox]\nbwrap = "/nonexistent/bwrap"\n')
    code, out = loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "correct_repair.py",
                         "--json", config=cfg)
    assert code == 3, out
    g = __import__("json").loads(out)
    assert g["verdict"] == "inconclusive" and g["infra"] == g["k"] and "bubblewrap not found" in g["notes"][0]


@pytest.mark.sandbox
def test_sandbox_failing_mid_grade_is_inconclusive(tmp_path):
    """The sandbox disappears after the task was checked: every attempt is infra_unknown, never a fail."""
    from loop import tasks
    from loop.grading.model import Options
    from loop.kinds import grade
    from loop.sandbox import SandboxConfig
    from conftest import ROOT

    task = tasks.load(ROOT, "merge_intervals_py")
    import tempfile

    fake = Path(tempfile.mkdtemp()) / "bwrap"
    fake.parent.chmod(0o755)
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    g = grade(task, REFERENCE, SandboxConfig(bwrap=str(fake)), Options(k=3, trials=0))
    assert g.verdict == "inconclusive" and g.infra == 3 and "uid map" in g.notes[0]


@pytest.mark.sandbox
def test_expired_quarantine_fails_every_command(loop_cli, task_copy):
    folder, cfg = task_copy("merge_intervals_py")
    q = cfg.parent / "harness" / "quarantine.toml"
    today = dt.date.today()
    q.write_text(f'[[entry]]\ntask = "merge_intervals_py"\ncheck = "test:empty_input"\nreason = "r"\nowner = "o"\n'
                 f"opened = {today - dt.timedelta(days=30)}\nexpires = {today - dt.timedelta(days=1)}\n")
    path = EXAMPLES / "merge_intervals_py" / "correct_repair.py"
    for args in (("grade", "merge_intervals_py", path), ("tasks", "check")):
        code, out = loop_cli(*args, config=cfg)
        assert code != 0 and "expired quarantine: merge_intervals_py/test:empty_input" in out
    q.write_text(q.read_text().replace(str(today - dt.timedelta(days=1)), str(today + dt.timedelta(days=7))))
    code, out = loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "descending_order.py",
                         "--json", config=cfg)
    assert code == 1  # quarantine does not hide the real regression
    q.write_text(q.read_text().replace('check = "test:empty_input"', 'check = "test:separated_ranges_stay_ascending"'))
    code, out = loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "descending_order.py",
                         config=cfg)
    assert code == 0 and "quarantined: test:separated_ranges_stay_ascending" in out
    q.write_text("[[entry]]\ntask = \"x\"\n")
    code, out = loop_cli("tasks", "check", config=cfg)
    assert code == 2 and "quarantine.toml:1: entry lacks key" in out


@pytest.mark.sandbox
def test_unstable_baseline_fixture_is_excluded(loop_cli, task_copy):
    folder, cfg = task_copy("merge_intervals_py")
    baseline = (folder / "baseline.py").read_text()
    (folder / "baseline.py").write_text(baseline + '''
_merge = merge_intervals


def merge_intervals(intervals):
    out = _merge(intervals)
    if intervals == [[10, 12], [1, 2], [5, 6]] and hash("loop-flaky") % 2 == 1:
        return out[::-1]
    return out
''')
    cfg.write_text(cfg.read_text().replace("k = 1", "k = 6"))
    code, out = loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "descending_order.py",
                         config=cfg)
    # the descending patch regresses exactly that test, but the fixture is unstable, so it is not graded against
    assert "unstable fixture: test:separated_ranges_stay_ascending" in out
    assert code == 0
