"""Grade one candidate file and store it as a batch of one; replay a stored candidate from its source and seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop.config import Config
from loop.grading.model import Grade
from loop.kinds import grade
from loop.run.candidates import Candidate
from loop.run.settings import grade_options, sandbox_config
from loop.run.verified import load_verified_task, quarantined_checks
from loop.store.db import RunStore, existing_db


@dataclass
class StoredGrade:
    """A grade and the rows it was stored as."""

    candidate_id: int
    batch_id: int
    grade: Grade


def grade_file(config: Config, task_name: str, path: Path, *, suite: str | None = None, seed: int | None = None,
               trials: int | None = None, k: int | None = None, db: Path | None = None,
               no_sandbox: bool = False) -> StoredGrade:
    """Grade the file `path` for the task and store it; nothing is written before the grade exists."""
    sandbox = sandbox_config(config, no_sandbox)
    candidate = Candidate.from_file(task_name, path)
    quarantine = quarantined_checks(config, task_name)
    task = load_verified_task(config, task_name, sandbox)
    opts = grade_options(config, suite=suite, seed=seed, trials=trials, k=k)
    result = grade(task, candidate.source, sandbox, opts, quarantine)
    # Written only once the grade exists: a crash or a bad input leaves nothing half-written.
    with RunStore(db or config.db_path) as store, \
            store.batch("grade", seed=opts.seed, suite=opts.suite, k=opts.k, trials=opts.trials,
                        sandboxed=int(sandbox.enabled), config=config.snapshot(), command=f"grade {path}") as batch_id:
        cid = store.add_candidate(batch_id, task.name, 0, source=candidate.source, sha256=candidate.sha256)
        store.record_grade(cid, result)
    return StoredGrade(cid, batch_id, result)


def replay(config: Config, candidate_id: int, db: Path | None = None, no_sandbox: bool = False) -> tuple[dict, Grade]:
    """Re-grade a stored candidate from its stored source and seed; the stored verdict is not trusted."""
    with RunStore(existing_db(db or config.db_path, f"candidate {candidate_id}")) as store:
        row = store.candidate(candidate_id)
        batch = store.batch_row(row["batch_id"])
    sandbox = sandbox_config(config, no_sandbox)
    task = load_verified_task(config, row["task"], sandbox)
    opts = grade_options(config, suite=row["suite"], seed=row["seed"] if row["seed"] is not None else batch["seed"],
                         trials=batch["trials"], k=row["k"])
    return row, grade(task, row["source"], sandbox, opts, quarantined_checks(config, task.name))
