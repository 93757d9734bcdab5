"""The public Python API: a tested list of names (as httpx's test_exported_members), and each function doing
what the CLI does, from Python."""


from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import loop

ROOT = Path(__file__).resolve().parent.parent
TASK = ROOT / "harness" / "tasks" / "merge_intervals_py"


def test_exported_members():
    public = {name for name, value in vars(loop).items()
              if not name.startswith("_") and not isinstance(value, ModuleType)} | {"__version__"}
    assert public == set(loop.__all__)
    assert set(loop.__all__) == {"Config", "Grade", "Options", "__version__", "grade", "grade_predictions",
                                 "grade_samples", "load_config", "pass_rates", "run_batch"}


@pytest.mark.slow
def test_grading_one_source_from_python_uses_no_http_and_no_sqlite(tmp_path):
    """loop.grade in a fresh interpreter: the reference passes, the baseline fails on its fail-to-pass test,
    and neither httpx nor SQLite was imported on the way."""
    code = f"""
import json, sys
import loop
good = loop.grade("merge_intervals_py", open({str(TASK / 'reference.py')!r}).read(), root={str(ROOT)!r}, k=2, trials=20)
bad = loop.grade("merge_intervals_py", open({str(TASK / 'baseline.py')!r}).read() + '# edited', root={str(ROOT)!r}, k=2, trials=20)
print(json.dumps({{"good": good.verdict, "bad": bad.verdict, "failures": [f["check"] for f in bad.failures()],
                  "loaded": sorted(m for m in ("httpx", "sqlite3", "sqlite_utils") if m in sys.modules)}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert (result["good"], result["bad"], result["loaded"]) == ("stable_pass", "stable_fail", [])
    assert any(check.startswith("test:") for check in result["failures"])


@pytest.mark.sandbox
def test_a_batch_from_python_is_stored_and_read_back(tmp_path):
    """run_batch with the project's demo cassette, then pass_rates over the same runs.db."""
    db = tmp_path / "runs.db"
    done = loop.run_batch(["merge_intervals_py"], root=ROOT, db=db, samples=2, k=1, trials=10)
    assert done.candidates == 2 and sum(done.verdicts.values()) == 2
    rows = loop.pass_rates(db, batch=done.batch_id)
    assert [(r["task"], r["candidates"]) for r in rows] == [("merge_intervals_py", 2)]
    assert rows[0]["passed"] == done.verdicts.get("stable_pass", 0) + done.verdicts.get("stable_pass_varying", 0)


def test_a_samples_file_from_python(tmp_path):
    """grade_samples refuses a file naming a task that is not imported, with the file and line in the message."""
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "HumanEval/0", "completion": "    return []\n"}) + "\n")
    try:
        loop.grade_samples(samples, root=tmp_path, db=tmp_path / "runs.db")
    except loop.errors.LoopError as exc:
        assert f"{samples}:1" in str(exc) and "not imported" in str(exc)
    else:
        raise AssertionError("a samples file for tasks that are not there was graded")
    assert not (tmp_path / "runs.db").exists()
