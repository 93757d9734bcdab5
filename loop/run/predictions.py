"""SWE-bench predictions (instance_id, model_name_or_path, model_patch) graded as one loop batch per model, and
the stored grades turned back into SWE-bench's per-instance report and run report, with loop's judgement beside.

`resolved` is SWE-bench's (the patch applied, the test patch's files reset and the tests run: every
FAIL_TO_PASS test passed, every PASS_TO_PASS test passed or skipped); `verdict`, `reason` and `integrity` are
loop's. The reports are read from runs.db, so they say what was stored; a test is a `success` only when it
passed in every repeat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from loop import tasks
from loop import verdicts as V
from loop.datasets.predictions import Prediction, by_model, imported, read_predictions
from loop.errors import HarnessError, LoopError, SwebenchError
from loop.kinds.repo import patch as repo_patch
from loop.kinds.repo import screen as repo_screen
from loop.kinds.repo import tripwire as repo_tripwire
from loop.run.batch import grade_candidates
from loop.run.candidates import Candidate
from loop.run.settings import grade_options, sandbox_config
from loop.run.verified import load_verified_task
from loop.store.db import RunStore

REFUSALS = (repo_patch.PATCH_DOES_NOT_APPLY, repo_patch.TOUCHES_TESTS, repo_patch.OUTSIDE_REPOSITORY,
            repo_screen.TOUCHES_TEST_INFRASTRUCTURE)
# what loop refuses and SWE-bench's rules let through (or what only loop's tripwires see)
INTEGRITY = (repo_patch.TOUCHES_TESTS, repo_screen.TOUCHES_TEST_INFRASTRUCTURE, repo_tripwire.FORGED_REPORT)
SKIPPED = "skipped"  # a test check's detail when the report said the test was skipped (results.parse_junit)


def graded_ids(task, checks: list[dict]) -> dict[str, list[str]]:
    """The ids the task grades (not what swebench.json says the dataset had: task.toml is what ran);
    an omitted pass_to_pass is every test the grade checked as p2p."""
    p2p = task.spec.pass_to_pass
    if p2p is None:
        p2p = [c["check"].removeprefix("test:") for c in checks if c["kind"] == "test" and c["test_kind"] == "p2p"]
    return {"FAIL_TO_PASS": list(task.spec.fail_to_pass), "PASS_TO_PASS": list(p2p)}


def instance_report(ids: dict[str, list[str]], prediction: Prediction, row: dict, checks: list[dict]) -> dict:
    """One instance in SWE-bench's report shape from the stored grade (SWE-bench's `resolved`), plus loop's
    verdict, reason and integrity findings. A patch whose tests never ran (empty, not applying, refused,
    inconclusive) has `tests_ran: false` and empty test lists, as SWE-bench writes no test status for it."""
    tests = {c["check"].removeprefix("test:"): c for c in checks if c["kind"] == "test"}
    ran = bool(tests)
    status = {key: {"success": [], "failure": []} for key in ("FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL",
                                                               "PASS_TO_FAIL")}
    if ran:
        for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            for t in ids[key]:
                c = tests.get(t)
                # SWE-bench: a fail-to-pass test must pass; a pass-to-pass test may pass or be skipped
                ok = c is not None and (c["passed"] or (key == "PASS_TO_PASS" and c["detail"] == SKIPPED))
                status[key]["success" if ok else "failure"].append(t)
    integrity = [{"check": c["check"], "detail": c["detail"]} for c in checks if c["check"] in INTEGRITY]
    forged = any(i["check"] == repo_tripwire.FORGED_REPORT for i in integrity)
    resolved = ran and not forged and not status["FAIL_TO_PASS"]["failure"] and not status["PASS_TO_PASS"]["failure"]
    infra = row["verdict"] == V.INCONCLUSIVE and (row["infra"] or 0) > 0
    report = {"model_name_or_path": prediction.model, "patch_is_None": prediction.patch is None,
              "patch_exists": bool((prediction.patch or "").strip()), "patch_successfully_applied": ran,
              "resolved": resolved, "infra_failure": infra, "tests_ran": ran, "tests_status": status,
              "verdict": row["verdict"],
              "loop_resolved": bool(row["resolved"]), "integrity": integrity, "candidate_id": row["id"],
              # issue 41: per named test, what decided it (sealed | tripwire-guarded | unguarded)
              "loop_decided_by": {t: tests[t].get("decided_by") for key in ("FAIL_TO_PASS", "PASS_TO_PASS")
                                  for t in ids[key] if t in tests}}
    if not report["loop_resolved"]:
        refused = row["reason"] if row["reason"] in REFUSALS else None
        failing = [c["check"] for c in checks if not c["passed"] and not c["quarantined"] and not c["excluded"]]
        # what loop refuses is its reason, whatever the tests did under SWE-bench's rules
        report["reason"] = (refused or (integrity and integrity[0]["check"]) or ", ".join(failing) or row["reason"]
                            or row["verdict"])
        detail = next((c["detail"] for c in checks if c["check"] == row["reason"]), None)
        if detail:
            report["detail"] = detail
        if infra:
            report["infra_failure_reason"] = detail or row["reason"] or V.INFRA_UNKNOWN
    return report


TASK_REFUSED = "task_refused"  # the reason of an instance whose task loop could not grade (never run)


def refused_report(prediction: Prediction, why: str) -> dict:
    """An instance whose task was refused (its environment does not build, its polarity fails): never run, and
    under SWE-bench's fields an error with an infrastructure failure, the reason beside it."""
    empty = {"success": [], "failure": []}
    return {"model_name_or_path": prediction.model, "patch_is_None": prediction.patch is None,
            "patch_exists": bool((prediction.patch or "").strip()), "patch_successfully_applied": False,
            "resolved": False, "infra_failure": True, "infra_failure_reason": why, "tests_ran": False,
            "tests_status": {k: dict(empty) for k in ("FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL")},
            "verdict": V.INCONCLUSIVE, "loop_resolved": False, "integrity": [], "candidate_id": None,
            "loop_decided_by": {}, "reason": TASK_REFUSED, "detail": why}


def run_report(model: str, batch_id: int, k: int, preds: list[Prediction], reports: dict[str, dict],
               rows: dict[str, dict], dataset: set[str]) -> dict:
    """SWE-bench's run report (make_run_report, schema 2) for one model's batch, plus loop's own counts.
    As SWE-bench: an empty patch ("" or null) is never run; a patch whose tests did not run is an error;
    the others are completed, resolved or not. `dataset` is every imported instance (total_instances)."""
    ids = {key: set() for key in ("completed", "resolved", "unresolved", "empty_patch", "error", "infra_failure",
                                  "ambiguous_failure")}
    reasons = {}
    for p in preds:
        r = reports[p.instance_id]
        if p.patch in ("", None):
            ids["empty_patch"].add(p.instance_id)
            continue
        if not r["tests_ran"]:
            ids["error"].add(p.instance_id)
        else:
            ids["completed"].add(p.instance_id)
            ids["resolved" if r["resolved"] else "unresolved"].add(p.instance_id)
        if r.get("infra_failure"):  # SWE-bench 5 (#586): additive, the id stays where it is above
            ids["infra_failure"].add(p.instance_id)
            reasons[p.instance_id] = r.get("infra_failure_reason", "")
    submitted = {p.instance_id for p in preds}
    # the keys and their order as swebench 5.0.2's harness/reporting.py make_run_report writes them
    out = {"total_instances": len(dataset), "submitted_instances": len(submitted),
           **{f"{key}_instances": len(ids[key]) for key in ("completed", "resolved", "unresolved", "infra_failure",
                                                            "ambiguous_failure", "empty_patch", "error")},
           "completed_ids": sorted(ids["completed"]), "incomplete_ids": sorted(dataset - submitted),
           "empty_patch_ids": sorted(ids["empty_patch"]), "submitted_ids": sorted(submitted),
           "resolved_ids": sorted(ids["resolved"]), "unresolved_ids": sorted(ids["unresolved"]),
           "infra_failure_ids": sorted(ids["infra_failure"]), "ambiguous_failure_ids": sorted(ids["ambiguous_failure"]),
           "failure_reasons": dict(sorted(reasons.items())), "error_ids": sorted(ids["error"]), "schema_version": 2}
    verdict_ids = {v: sorted(i for i, row in rows.items() if row["verdict"] == v) for v in (V.FLAKY, V.INCONCLUSIVE)}
    loop_ids = {
        "loop_resolved": sorted(i for i, r in reports.items() if r["loop_resolved"]),
        "flaky": verdict_ids[V.FLAKY], "inconclusive": verdict_ids[V.INCONCLUSIVE],
        "infra_unknown": sorted(i for i, row in rows.items() if (row["infra"] or 0) > 0),
        "integrity": sorted(i for i, r in reports.items() if r["integrity"]),
    }
    out.update({f"{key}_instances": len(v) for key, v in loop_ids.items()})
    out.update({f"{key}_ids": v for key, v in loop_ids.items()})
    out.update({"model_name_or_path": model, "run_id": f"loop-batch-{batch_id}", "batch_id": batch_id, "k": k})
    return out


def report_path(default_dir: Path, given: Path | None, model: str, batch_id: int, several: bool) -> Path:
    """SWE-bench's name (`<model>.<run_id>.json`, '/' as '__') beside runs.db; `--report FILE` for one model,
    FILE with the model before its suffix when the file held several."""
    safe = model.replace("/", "__") or "model"
    if given is None:
        return default_dir / f"{safe}.loop-batch-{batch_id}.json"
    return given.with_name(f"{given.stem}.{safe}{given.suffix}") if several else given


@dataclass
class Graded:
    batch_id: int
    model: str
    candidates: int
    verdicts: dict
    reports: dict[str, dict]  # instance_id -> SWE-bench report (plus loop's verdict, reason, integrity)
    run_report: dict  # SWE-bench's run report plus loop's counts
    report_file: Path


def grade_predictions(config, path: Path, *, k: int | None = None, seed: int | None = None, db: Path | None = None,
                      report: Path | None = None, **how) -> list[Graded]:
    """Grade a predictions file as one batch per model (kind `predictions`), under SWE-bench's rules, and
    write each model's run report.

    The file is checked first, so bad input writes nothing; then every instance's task and its polarity: an
    instance whose task is refused is reported (an error with an infrastructure failure, the reason beside
    it) and the others are graded. Each batch then resumes with `loop grade --batch ID` like any other."""
    known = imported(config.root)
    preds = read_predictions(path, known)
    db = db or config.db_path
    if report is not None and report.is_dir():
        raise SwebenchError(f"--report {report}: is a folder; give a file name")
    sandbox = sandbox_config(config)
    refused = {}  # instance -> why its task cannot be graded; the others are
    progress = how.get("progress")
    names = sorted({p.instance_id for p in preds})
    for n, name in enumerate(names, 1):  # every model's tasks, before any batch exists
        if progress is not None:
            progress({"step": f"checking {name} ({n}/{len(names)}): its environment and polarity"})
        try:
            load_verified_task(config, name, sandbox)
        except (LoopError, HarnessError) as exc:
            refused[name] = str(exc)
            if progress is not None:
                progress({"step": f"refused {name}: {refused[name][:300]}"})
    opts = grade_options(config, seed=seed, k=k, trials=0, rules="swebench")
    how.setdefault("command", f"grade --predictions {path}")
    groups = by_model(preds)
    out = []
    for model, mine in groups.items():
        done = grade_candidates(config, [Candidate.from_prediction(p) for p in mine if p.instance_id not in refused],
                                opts, {"predictions": str(path), **({"refused": refused} if refused else {})},
                                batch_kind="predictions", db=db, **how)
        with RunStore(db) as store:
            rows = {r["task"]: r for r in store.candidates(done.batch_id)}
            reports = {}
            for p in mine:
                if p.instance_id in refused:
                    reports[p.instance_id] = refused_report(p, refused[p.instance_id])
                    continue
                checks = store.grade_checks(rows[p.instance_id]["id"])
                task = tasks.load(config.root, p.instance_id)
                reports[p.instance_id] = instance_report(graded_ids(task, checks), p, rows[p.instance_id], checks)
        summary = run_report(model, done.batch_id, opts.k, mine, reports, rows, known)
        file = report_path(Path(db).parent, report, model, done.batch_id, len(groups) > 1)
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(json.dumps(summary, indent=4) + "\n", encoding="utf-8")
        except OSError as exc:
            raise SwebenchError(f"{file}: cannot write the run report of batch {done.batch_id} "
                                f"({exc.__class__.__name__}); the batch is in {db}") from None
        out.append(Graded(done.batch_id, model, done.candidates, done.verdicts, reports, summary, file))
    return out
