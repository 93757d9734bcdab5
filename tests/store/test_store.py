"""RunStore.batch(): one place for a batch's start, finish, failure and discard."""

import pytest
import sqlite_utils

from loop.errors import CassetteError
from loop.store.db import RunStore


def statuses(db):
    return [(r["id"], r["status"]) for r in sqlite_utils.Database(db)["batches"].rows]


def test_batch_is_done_when_the_block_ends_and_failed_when_it_raises(db):
    with RunStore(db) as store:
        with store.batch("run", seed=1) as done:
            store.add_candidate(done, "t", 0, source="x")
        with pytest.raises(KeyboardInterrupt), store.batch("run", seed=1):
            raise KeyboardInterrupt
    assert statuses(db) == [(done, "done"), (done + 1, "failed")]


def test_a_new_batch_raising_a_discarded_error_leaves_no_trace_a_resumed_one_fails(db):
    with RunStore(db) as store:
        with pytest.raises(CassetteError), store.batch("run", discard_on=(CassetteError,)) as gone:
            store.add_candidate(gone, "t", 0, source="x")
            raise CassetteError("not this batch's cassette")
        kept = store.start_batch("run")
        with pytest.raises(CassetteError), store.batch(resume=kept, discard_on=(CassetteError,)):
            raise CassetteError("resumed: the batch stays, failed")
        assert store.db["candidates"].count == 0
    assert statuses(db) == [(kept, "failed")]


def test_a_test_rows_decided_by_is_stored(db):
    """Issue 41: migration 010 adds checks.decided_by; a grade's test rows keep what decided them."""
    from loop.grading.model import Attempt, Check, Grade

    checks = [Check("test:t.py::a", "test", False, "sealed assertion at t.py:3: expected 1 (kept outside the "
                    "sandbox), got 2", test_kind="f2p", decided_by="sealed"),
              Check("test:t.py::b", "test", True, test_kind="p2p", decided_by="tripwire-guarded")]
    grade = Grade("t", "stable_fail", False, 1, 1, "full", "x", True,
                  [Attempt(0, "fail", None, 1, "d", 0.1, 1, {}, checks)], checks)
    with RunStore(db) as store:
        with store.batch("run", seed=1) as batch:
            cid = store.add_candidate(batch, "t", 0, source="x")
            store.record_grade(cid, grade)
    rows = sqlite_utils.Database(db)["checks"].rows_where('"repeat" is null', order_by="id")
    assert [(r["check"], r["decided_by"]) for r in rows] == [("test:t.py::a", "sealed"),
                                                             ("test:t.py::b", "tripwire-guarded")]
