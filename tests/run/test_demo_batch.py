"""The demo batch (`make run`: the curated cassette, k=5, 200 trials) gives the verdicts and failed checks it
gave before the task-kind and executor seams went in (tests/data/demo_batch.json, recorded then): a
restructuring must not change a single verdict."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "demo_batch.json"


def _snapshot(db: Path) -> list[dict]:
    con = sqlite3.connect(db)
    out = []
    for cid, task, sample, verdict, reason in con.execute(
            "select id, task, sample, verdict, reason from candidates order by task, sample"):
        checks = sorted({c for (c,) in con.execute(
            'select "check" from checks where candidate_id = ? and passed = 0 and repeat is null', [cid])})
        out.append({"task": task, "sample": sample, "verdict": verdict, "reason": reason, "failed_checks": checks})
    con.close()
    return out


@pytest.mark.slow
def test_the_demo_batch_keeps_its_verdicts(tmp_path, monkeypatch, loop_cli):
    db = tmp_path / "runs.db"
    monkeypatch.setenv("LOOP_DB", str(db))
    code, out = loop_cli("run")
    assert code == 0, out
    assert _snapshot(db) == json.loads(DATA.read_text())
