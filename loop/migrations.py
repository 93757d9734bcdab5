"""Append-only, numbered migrations of runs.db.

Never edit a migration that has shipped: add a new one. Each runs in one transaction with the
record that it ran (sqlite-utils `Migrations`), so an interrupted migration is simply re-run.
"""

from sqlite_utils.migrations import Migrations

migrations = Migrations("loop")


@migrations(name="001_core")
def m001_core(db):
    db["batches"].create({
        "id": int, "kind": str, "created_at": str, "finished_at": str, "status": str,
        "seed": int, "model": str, "endpoint": str, "config": str, "suite": str, "k": int,
        "trials": int, "sandboxed": int, "command": str,
    }, pk="id")
    db["candidates"].create({
        "id": int, "batch_id": int, "task": str, "sample": int, "source": str, "source_sha256": str,
        "reply": str, "status": str, "reason": str, "verdict": str, "resolved": int, "suite": str,
        "seed": int, "k": int, "passes": int, "fails": int, "infra": int, "digests": int,
        "duplicate_of": int, "sandboxed": int, "model": str, "notes": str, "created_at": str, "graded_at": str,
    }, pk="id", foreign_keys=[("batch_id", "batches", "id")])
    db["candidates"].create_index(["batch_id", "task", "sample"], unique=True)
    db["candidates"].create_index(["source_sha256"])
    db["attempts"].create({
        "id": int, "candidate_id": int, "repeat": int, "status": str, "reason": str, "exit_code": int,
        "digest": str, "duration": float, "seed": int, "env": str,
    }, pk="id", foreign_keys=[("candidate_id", "candidates", "id")])
    db["attempts"].create_index(["candidate_id", "repeat"], unique=True)
    db["checks"].create({
        "id": int, "candidate_id": int, "repeat": int, "check": str, "kind": str, "passed": int,
        "test_kind": str, "baseline": str, "candidate": str, "transition": str, "input": str,
        "expected": str, "actual": str, "minimal": str, "detail": str, "seed": int, "trial": int,
        "quarantined": int, "excluded": int,
    }, pk="id", foreign_keys=[("candidate_id", "candidates", "id")])
    db["checks"].create_index(["candidate_id"])
    db["requests"].create({
        "id": int, "batch_id": int, "candidate_id": int, "task": str, "sample": int, "attempt": int,
        "started_at": str, "latency": float, "status_code": int, "error_class": str, "wait": float,
        "prompt_tokens": int, "completion_tokens": int,
    }, pk="id", foreign_keys=[("batch_id", "batches", "id")])
    db["requests"].create_index(["batch_id"])
    db["seeds"].create({"id": int, "old": int, "new": int, "rotated_at": str}, pk="id")
