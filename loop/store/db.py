"""RunStore: opens runs.db, migrates it, and writes rows in short transactions.

It receives plain dataclasses (grades, request records) and never imports grading or HTTP code;
each grade is written in one transaction, so a crash leaves either all of it or none.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from loop.store.lite import sqlite_utils

from loop.errors import StoreError
from loop.grading.model import text
from loop.sandbox.inside.codec import enc
from loop.store.migrations import INPUT_COUNTS, immediate, migrate

BUSY_SECONDS = 30  # how long a writer waits for another's lock


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def _json(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return text(json.dumps(enc(value), ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):  # a candidate's value: stored as a label, never a crash
        return json.dumps(f"<unstorable {type(value).__name__}>")


def _insert_rows(conn, table: str, rows: list[dict]) -> None:
    """Rows of plain values, all with the same keys, in one statement: a grade is written once per candidate,
    and sqlite-utils' insert_all reads the table's schema on every call (31 statements a grade, not 5)."""
    if rows:
        cols = list(rows[0])
        conn.executemany(f"insert into [{table}] ({', '.join(f'[{c}]' for c in cols)}) "
                         f"values ({', '.join('?' * len(cols))})", [[r[c] for c in cols] for r in rows])


class RunStore:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            conn = None
            try:
                conn = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None,
                                       check_same_thread=False)
                self.db = sqlite_utils.Database(conn)
                self.db.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
                self.db.execute("PRAGMA foreign_keys = ON")
                migrate(self.db)
                return
            except sqlite3.DatabaseError as exc:
                if conn is not None:
                    conn.close()
                # Switching a new file to WAL takes a lock SQLite's busy handler does not wait for: processes
                # opening one runs.db at once find it locked, and try again (a test races four of them)
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise StoreError(f"{self.path}: cannot open as a loop database ({exc})") from None
                time.sleep(0.02)

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # batches -------------------------------------------------------------
    def start_batch(self, batch_kind: str, **fields) -> int:
        row = {"kind": batch_kind, "created_at": now(), "status": "running", **fields}
        if isinstance(row.get("config"), dict):
            row["config"] = json.dumps(row["config"], sort_keys=True)
        with immediate(self.db):
            return self.db["batches"].insert(row).last_pk

    def note_resume(self, batch_id: int, base_url: str, command: str | None) -> None:
        """A batch resumed against another base URL: the endpoint it now asks, and when and how, in its config."""
        with immediate(self.db):
            row = self.db["batches"].get(batch_id)
            try:
                config = json.loads(row["config"] or "{}")
            except ValueError:
                config = {}
            config.setdefault("resumes", []).append({"at": now(), "base_url": base_url, "command": command})
            self.db["batches"].update(batch_id, {"endpoint": base_url, "config": json.dumps(config, sort_keys=True)})

    @contextmanager
    def batch(self, batch_kind: str | None = None, *, resume: int | None = None, discard_on: tuple = (),
              **fields) -> Iterator[int]:
        """A batch's life around the block that fills it: started (or, with `resume`, the stored one), then
        `done` when the block ends and `failed` when it raises. A new batch whose block raises one of
        `discard_on` is deleted instead: what it held never belonged to the batch (a foreign cassette)."""
        batch_id = resume if resume is not None else self.start_batch(batch_kind, **fields)
        try:
            yield batch_id
        except discard_on if resume is None else ():
            self.delete_batch(batch_id)
            raise
        except BaseException:
            self.finish_batch(batch_id, "failed")
            raise
        self.finish_batch(batch_id)

    def finish_batch(self, batch_id: int, status: str = "done") -> None:
        with immediate(self.db):
            self.db["batches"].update(batch_id, {"finished_at": now(), "status": status})

    def delete_batch(self, batch_id: int) -> None:
        with immediate(self.db):
            ids = "select id from candidates where batch_id = ?"
            self.db.execute(f"delete from checks where candidate_id in ({ids})", [batch_id])
            self.db.execute(f"delete from attempts where candidate_id in ({ids})", [batch_id])
            self.db.execute("delete from requests where batch_id = ?", [batch_id])
            self.db.execute("delete from synth_tests where suite_id in (select id from suites where batch_id = ?)",
                            [batch_id])
            self.db.execute("delete from suites where batch_id = ?", [batch_id])
            self.db.execute("delete from candidates where batch_id = ?", [batch_id])
            self.db.execute("delete from batches where id = ?", [batch_id])

    def batch_row(self, batch_id: int) -> dict:
        try:
            return self.db["batches"].get(batch_id)
        except sqlite_utils.db.NotFoundError:
            raise StoreError(f"{self.path}: no batch {batch_id}") from None

    # candidates ----------------------------------------------------------
    def add_candidate(self, batch_id: int, task: str, sample: int, *, source: str | None, reply: str | None = None,
                      status: str = "generated", reason: str | None = None, model: str | None = None,
                      sha256: str | None = None, round: int = 1) -> int:
        """Insert one received sample; re-inserting the same (batch, task, sample, round) keeps the first."""
        row = {"batch_id": batch_id, "task": task, "sample": sample, "source": source, "reply": reply,
               "source_sha256": sha256, "status": status, "reason": reason, "model": model, "created_at": now(),
               "round": round}
        with immediate(self.db):
            return self._insert_once(row)

    def _insert_once(self, row: dict) -> int:
        existing = list(self.db["candidates"].rows_where(
            "batch_id = ? and task = ? and sample = ? and coalesce(round, 1) = ?",
            [row["batch_id"], row["task"], row["sample"], row.get("round", 1)], limit=1))
        if existing:
            return existing[0]["id"]
        return self.db["candidates"].insert(row).last_pk

    def _follow_up(self, parent_id: int, follow_up: dict | None) -> int | None:
        """The pending row of a failed candidate's next round (inside the caller's transaction, so a grade
        and the follow-up it earns are committed together): its parent's sample, its round, the feedback."""
        if follow_up is None:
            return None
        parent = self.db["candidates"].get(parent_id)
        row = {"batch_id": parent["batch_id"], "task": parent["task"], "sample": parent["sample"],
               "round": (parent["round"] or 1) + 1, "parent_id": parent_id, "status": "pending",
               "model": parent["model"], "source": None, "created_at": now(), **follow_up}
        return self._insert_once(row)

    def follow_up_of(self, candidate_id: int) -> dict | None:
        """The next round's row of a candidate, if it earned one."""
        rows = list(self.db["candidates"].rows_where("parent_id = ?", [candidate_id], order_by="id", limit=1))
        return rows[0] if rows else None

    def lineage(self, candidate_id: int) -> list[dict]:
        """A conversation's rows, round 1 first, ending with `candidate_id`."""
        chain = [self.candidate(candidate_id)]
        while chain[0]["parent_id"] is not None:
            chain.insert(0, self.candidate(chain[0]["parent_id"]))
        return chain

    def update_candidate(self, candidate_id: int, **cols) -> None:
        with immediate(self.db):
            self.db["candidates"].update(candidate_id, cols)

    def record_duplicate(self, duplicate: int, original: int, *, follow_up: dict | None = None) -> str:
        """Give a duplicate source the verdict of the identical candidate graded before it (and, with
        `follow_up`, its own next round: each sample continues its own conversation)."""
        row = self.candidate(original)
        cols = {k: row[k] for k in ("verdict", "resolved", "suite", "seed", "k", "passes", "fails", "infra",
                                     "digests", "sandboxed", "reason", "notes",
                                     *(f"inputs_{n}" for n in INPUT_COUNTS))}
        with immediate(self.db):
            self.db["candidates"].update(duplicate, {**cols, "status": "graded", "duplicate_of": original,
                                                      "graded_at": now()})
            self._follow_up(duplicate, follow_up)
        return row["verdict"]

    def candidate(self, candidate_id: int) -> dict:
        try:
            return self.db["candidates"].get(candidate_id)
        except sqlite_utils.db.NotFoundError:
            raise StoreError(f"{self.path}: no candidate {candidate_id}") from None

    def spending(self, batch_id: int) -> dict:
        """What a batch has spent so far and over how many answered samples."""
        # as Budget.charge counted: the billed tokens (an estimate where an answer's usage was unknown)
        spent = self.db.execute("""
            select (coalesce(sum(coalesce(r.billed_prompt_tokens, r.prompt_tokens)), 0)
                      * coalesce(json_extract(b.config, '$.prices.prompt'), 0)
                    + coalesce(sum(coalesce(r.billed_completion_tokens, r.completion_tokens)), 0)
                      * coalesce(json_extract(b.config, '$.prices.completion'), 0)) / 1000000.0
            from requests r join batches b on b.id = r.batch_id where r.batch_id = ?""", [batch_id]).fetchone()
        answered = self.db.execute("select count(*) from candidates where batch_id = ? and reply is not null",
                                   [batch_id]).fetchone()
        return {"spent": spent[0], "answered": answered[0]}
    def add_generated(self, batch_id: int, candidates: list) -> None:
        """Insert candidates that arrived together (loop.run.candidates.Candidate: task, source, sha256, model) in
        one transaction (a samples file: thousands of rows at once), numbered per task in order."""
        per_task: dict[str, int] = {}
        rows = []
        for c in candidates:
            per_task[c.task] = per_task.get(c.task, -1) + 1
            rows.append({"batch_id": batch_id, "task": c.task, "sample": per_task[c.task], "source": c.source,
                         "source_sha256": c.sha256, "model": c.model, "status": "generated", "round": 1,
                         "created_at": now()})
        with immediate(self.db):
            self.db["candidates"].insert_all(rows)

    def candidates(self, batch_id: int) -> list[dict]:
        return list(self.db["candidates"].rows_where("batch_id = ?", [batch_id], order_by="id"))

    def grade_checks(self, candidate_id: int) -> list[dict]:
        """A candidate's grade-level check rows (one per named test, plus the first failure of each other check);
        a duplicate's are its original's."""
        row = self.candidate(candidate_id)
        cid = row["duplicate_of"] or candidate_id
        return list(self.db["checks"].rows_where('candidate_id = ? and "repeat" is null', [cid], order_by="id"))

    def record_grade(self, candidate_id: int, grade, *, duplicate_of: int | None = None,
                     follow_up: dict | None = None) -> int | None:
        """Write a grade (verdict, attempts, checks) in one transaction, replacing any earlier one; with
        `follow_up` (feedback, evidence, seed) also the next round's pending row, whose id is returned."""
        cols = {
            "status": "graded", "verdict": grade.verdict, "resolved": int(grade.resolved), "suite": grade.suite,
            "seed": grade.seed, "k": grade.k, "passes": grade.passes, "fails": grade.fails, "infra": grade.infra,
            "digests": grade.digests, "duplicate_of": duplicate_of, "sandboxed": int(grade.sandboxed),
            "notes": json.dumps(grade.notes) if grade.notes else None, "graded_at": now(),
            "reason": grade.failures()[0]["check"] if grade.failures() else None,
            **{f"inputs_{n}": (grade.inputs or {}).get(n) for n in INPUT_COUNTS},
        }
        attempts = [{"candidate_id": candidate_id, "repeat": a.repeat, "status": a.status, "reason": a.reason,
                     "exit_code": a.exit_code, "digest": a.digest, "duration": a.duration, "seed": a.seed,
                     "env": json.dumps(a.env, sort_keys=True)} for a in grade.attempts]
        rows = [self._check_row(candidate_id, None, c) for c in grade.checks]
        rows += [self._check_row(candidate_id, a.repeat, c) for a in grade.attempts for c in a.checks if not c.passed]
        with immediate(self.db):
            conn = self.db.conn
            conn.execute("delete from checks where candidate_id = ?", [candidate_id])
            conn.execute("delete from attempts where candidate_id = ?", [candidate_id])
            conn.execute(f"update candidates set {', '.join(f'[{c}] = ?' for c in cols)} where id = ?",
                         [*cols.values(), candidate_id])
            _insert_rows(conn, "attempts", attempts)
            _insert_rows(conn, "checks", rows)
            return self._follow_up(candidate_id, follow_up)

    @staticmethod
    def _check_row(candidate_id: int, repeat: int | None, c) -> dict:
        return {"candidate_id": candidate_id, "repeat": repeat, "check": c.check, "kind": c.category,
                "passed": int(c.passed), "test_kind": c.test_kind, "baseline": c.baseline,
                "candidate": c.candidate, "transition": c.transition, "input": _json(c.input),
                "expected": _json(c.expected), "actual": _json(c.actual), "minimal": _json(c.minimal),
                "detail": c.detail, "seed": c.seed, "trial": c.trial, "quarantined": int(c.quarantined),
                "excluded": int(c.excluded), "decided_by": c.decided_by}

    # requests and seeds -------------------------------------------------
    def add_request(self, batch_id: int, record, *, candidate_id: int | None = None, task: str | None = None,
                    sample: int | None = None, round: int = 1) -> int:
        """One HTTP attempt's row (loop.ask.endpoint.RequestRecord); its id, for update_request."""
        row = {"batch_id": batch_id, "candidate_id": candidate_id, "task": task, "sample": sample, "round": round,
               **_request_columns(record)}
        with immediate(self.db):
            return self.db["requests"].insert(row).last_pk

    def update_request(self, request_id: int, record) -> None:
        """The row written before the attempt was sent, now that it is over."""
        with immediate(self.db):
            self.db["requests"].update(request_id, _request_columns(record))

    def record_rotation(self, old: int | None, new: int) -> None:
        with immediate(self.db):
            self.db["seeds"].insert({"old": old, "new": new, "rotated_at": now()})

    # test synthesis -----------------------------------------------------
    def record_suite(self, batch_id: int | None, task: str, sample: int | None, *, model: str | None,
                     verdict: str, reason: str | None, reply: str | None, tests: list) -> int:
        """Write one judged suite and its tests in one transaction; `tests` hold name, cls, reason,
        input, expected, baseline and reference attributes (loop.run.synthesis.TestJudgement)."""
        row = {"batch_id": batch_id, "task": task, "model": model, "sample": sample, "verdict": verdict,
               "reason": reason, "reply": reply, "created_at": now()}
        with immediate(self.db):
            suite_id = self.db["suites"].insert(row).last_pk
            self.db["synth_tests"].insert_all(
                {"suite_id": suite_id, "name": t.name, "class": t.cls, "reason": t.reason,
                 "input": _json(t.input), "expected": _json(t.expected), "baseline": t.baseline,
                 "reference": t.reference} for t in tests)
        return suite_id

    def suites(self, batch_id: int) -> list[dict]:
        """The batch's suites in order, each with its tests under "tests"."""
        out = []
        for s in self.db["suites"].rows_where("batch_id = ?", [batch_id], order_by="id"):
            s["tests"] = list(self.db["synth_tests"].rows_where("suite_id = ?", [s["id"]], order_by="id"))
            out.append(s)
        return out


class RequestRows:
    """One batch's `requests` rows as an Endpoint reports its attempts: `sent` (its on_send) writes a row before
    the attempt leaves, so a kill leaves evidence of what may have been billed; `done` (on_request) completes
    it. `where(tag)` gives the row's candidate_id, task, sample and round from the request's tag."""

    def __init__(self, store: RunStore, batch_id: int, where) -> None:
        self.store, self.batch_id, self.where = store, batch_id, where
        self._rows: dict[int, int] = {}  # RequestRecord.key -> row id

    def sent(self, record) -> None:
        self._rows[record.key] = self.store.add_request(self.batch_id, record, **self.where(record.tag))

    def done(self, record) -> None:
        row = self._rows.pop(record.key, None)
        if row is None:
            self.store.add_request(self.batch_id, record, **self.where(record.tag))
        else:
            self.store.update_request(row, record)


def _request_columns(record) -> dict:
    return {"attempt": record.attempt, "started_at": record.started_at, "latency": record.latency,
            "status_code": record.status_code, "error_class": record.error_class, "wait": record.wait,
            "prompt_tokens": record.prompt_tokens, "completion_tokens": record.completion_tokens,
            "limiter_wait": record.limiter_wait, "rate_estimate": record.rate_estimate,
            "billed_prompt_tokens": record.billed_prompt_tokens,
            "billed_completion_tokens": record.billed_completion_tokens}


def existing_db(path: Path, what: str) -> Path:
    """The runs.db that must already hold `what` (a batch to resume, a candidate to replay): a missing file is
    that error, not a new empty database left behind."""
    if not Path(path).exists():
        raise StoreError(f"{path}: no {what}")
    return path
