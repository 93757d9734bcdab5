"""SWE-bench predictions (instance_id, model_name_or_path, model_patch) graded as one loop batch, and the
stored grades turned back into SWE-bench's per-instance report, with loop's verdict and reason added.

The report is read from runs.db, so it says what was stored; a test is a `success` only when it passed
in every repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop import tasks
from loop.datasets.predictions import Prediction, imported, read_predictions
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import screen as repo_screen
from loop.run.batch import grade_candidates
from loop.run.candidates import Candidate
from loop.run.settings import grade_options
from loop.store.db import RunStore

REFUSALS = (repo_patch.PATCH_DOES_NOT_APPLY, repo_patch.TOUCHES_TESTS, repo_patch.OUTSIDE_REPOSITORY,
            repo_screen.TOUCHES_TEST_INFRASTRUCTURE)


def graded_ids(task, checks: list[dict]) -> dict[str, list[str]]:
    """The ids the task grades (not what swebench.json says the dataset had: task.toml is what ran);
    an omitted pass_to_pass is every test the grade checked as p2p."""
    p2p = task.spec.pass_to_pass
    if p2p is None:
        p2p = [c["check"].removeprefix("test:") for c in checks if c["kind"] == "test" and c["test_kind"] == "p2p"]
    return {"FAIL_TO_PASS": list(task.spec.fail_to_pass), "PASS_TO_PASS": list(p2p)}


def instance_report(ids: dict[str, list[str]], prediction: Prediction, row: dict, checks: list[dict]) -> dict:
    """One instance in SWE-bench's report shape, from the stored grade: a test is a success only when it
    passed in every attempt (resolved = loop's resolved: a green verdict, steady across repeats)."""
    passed = {c["check"].removeprefix("test:") for c in checks if c["kind"] == "test" and c["passed"]}
    status = {}
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        status[key] = {"success": [t for t in ids[key] if t in passed],
                       "failure": [t for t in ids[key] if t not in passed]}
    status["FAIL_TO_FAIL"] = {"success": [], "failure": []}  # loop runs only the named tests
    status["PASS_TO_FAIL"] = {"success": [], "failure": []}
    refused = row["reason"] if row["reason"] in REFUSALS else None
    empty = not (prediction.patch or "").strip()
    report = {"model_name_or_path": prediction.model, "patch_is_None": prediction.patch is None,
              "patch_exists": not empty, "patch_successfully_applied": not empty and refused is None,
              "resolved": bool(row["resolved"]), "tests_status": status, "verdict": row["verdict"],
              "candidate_id": row["id"]}
    if not report["resolved"]:
        failing = [c["check"] for c in checks if not c["passed"] and not c["quarantined"] and not c["excluded"]]
        report["reason"] = refused or ", ".join(failing) or row["reason"] or row["verdict"]
        detail = next((c["detail"] for c in checks if c["check"] == row["reason"]), None)
        if detail:
            report["detail"] = detail
    return report


@dataclass
class Graded:
    batch_id: int
    candidates: int
    verdicts: dict
    reports: dict[str, dict]  # instance_id -> SWE-bench report (plus verdict and reason)


def grade_predictions(config, path: Path, *, k: int | None = None, seed: int | None = None, db: Path | None = None,
                      **how) -> Graded:
    """Grade a predictions file as one batch (kind `predictions`) and report it per instance.

    Everything is checked first (the file, every instance's task and its polarity), so bad input writes
    nothing; the batch then resumes with `loop grade --batch ID` like any other."""
    preds = read_predictions(path, imported(config.root))
    db = db or config.db_path
    opts = grade_options(config, seed=seed, k=k, trials=0)
    how.setdefault("command", f"grade --predictions {path}")
    done = grade_candidates(config, [Candidate.from_prediction(p) for p in preds], opts, {"predictions": str(path)},
                            batch_kind="predictions", db=db, **how)
    with RunStore(db) as store:
        rows = {r["task"]: r for r in store.candidates(done.batch_id)}
        reports = {}
        for p in preds:
            checks = store.grade_checks(rows[p.instance_id]["id"])
            task = tasks.load(config.root, p.instance_id)
            reports[p.instance_id] = instance_report(graded_ids(task, checks), p, rows[p.instance_id], checks)
    return Graded(done.batch_id, done.candidates, done.verdicts, reports)
