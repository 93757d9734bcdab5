"""SWE-bench predictions (instance_id, model_name_or_path, model_patch) graded as one loop batch, and the
stored grades turned back into SWE-bench's per-instance report, with loop's verdict and reason added.

The report is read from runs.db, so it says what was stored; a test is a `success` only when it passed
in every repeat.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop import tasks
from loop.grading.model import text
from loop.kinds import repo_patch, repo_screen
from loop.swebench import META, SwebenchError, json_objects

REFUSALS = (repo_patch.PATCH_DOES_NOT_APPLY, repo_patch.TOUCHES_TESTS, repo_patch.OUTSIDE_REPOSITORY,
            repo_screen.TOUCHES_TEST_INFRASTRUCTURE)


@dataclass(frozen=True)
class Prediction:
    where: str
    instance_id: str
    model: str
    patch: str | None  # None or "": SWE-bench's empty prediction


def imported(root: Path) -> set[str]:
    """The instance ids imported under root's tasks (their folders hold swebench.json)."""
    return {name for name in tasks.list_tasks(root) if (tasks.tasks_root(root) / name / META).is_file()}


def read_predictions(path: Path, known: set[str]) -> list[Prediction]:
    """SWE-bench predictions (JSONL, a JSON list, or a dict keyed by instance_id): instance_id,
    model_name_or_path, model_patch; each for an imported instance, once."""
    out, seen = [], {}
    for where, obj in json_objects(path, "predictions", keyed=True):
        for key in ("instance_id", "model_name_or_path", "model_patch"):
            if key not in obj:
                raise SwebenchError(f"{where}: missing field '{key}'")
        iid, model, patch = obj["instance_id"], obj["model_name_or_path"], obj["model_patch"]
        if not isinstance(iid, str) or not isinstance(model, str) or not (patch is None or isinstance(patch, str)):
            raise SwebenchError(f"{where}: instance_id and model_name_or_path must be strings, model_patch a "
                                "string or null")
        if iid not in known:
            raise SwebenchError(f"{where}: instance {iid!r} is not imported (run: loop tasks import swebench "
                                "INSTANCES.jsonl --repos DIR)")
        if iid in seen:
            raise SwebenchError(f"{where}: instance {iid!r} already predicted at {seen[iid]}")
        seen[iid] = where
        out.append(Prediction(where, iid, text(model), text(patch)))  # hostile bytes are the patch's failure
    return out


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


def grade_predictions(cfg, path: Path, *, k: int | None = None, seed: int | None = None, db: Path | None = None,
                      progress=None, command: str | None = None, cluster: str | None = None) -> Graded:
    """Grade a predictions file as one batch (kind `predictions`) and report it per instance.

    Everything is checked first (the file, every instance's task and its polarity), so bad input writes
    nothing; then the batch is stored with its candidates and graded the way `loop grade --batch` grades
    a generated batch, which also finishes it after a crash."""
    from loop import runner, seeds
    from loop.grading.grade import sha256
    from loop.settings import Origin, sandbox_config
    from loop.store import RunStore

    known = imported(cfg.root)
    preds = read_predictions(path, known)
    sandbox = sandbox_config(cfg)
    loaded = {p.instance_id: runner.load_verified_task(cfg, p.instance_id, sandbox) for p in preds}
    db = db or cfg.db_path
    k = k or cfg.loop.k
    seed = seeds.current(cfg.root) if seed is None else seed
    with RunStore(db) as store:
        batch_id = store.start_batch(
            "predictions", seed=seed, model=", ".join(sorted({p.model for p in preds})), suite=cfg.loop.suite,
            k=k, trials=0, sandboxed=int(sandbox.enabled), command=command,
            config={"predictions": str(path), "loop": {"k": k, "trials": 0, "suite": cfg.loop.suite, "seed": seed}})
        for p in preds:
            source = p.patch if (p.patch or "").strip() else None
            store.add_candidate(batch_id, p.instance_id, 0, source=source, model=p.model,
                                sha256=sha256(source) if source else None)
    done = runner.run_batch(cfg, [], origin=Origin(), resume=batch_id, db=db, progress=progress, command=command,
                            cluster=cluster)
    with RunStore(db) as store:
        rows = {r["task"]: r for r in store.candidates(batch_id)}
        reports = {}
        for p in preds:
            checks = store.grade_checks(rows[p.instance_id]["id"])
            reports[p.instance_id] = instance_report(graded_ids(loaded[p.instance_id], checks), p,
                                                     rows[p.instance_id], checks)
    return Graded(batch_id, done.candidates, done.verdicts, reports)
