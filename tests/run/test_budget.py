"""`loop run --budget`: a budget stops a batch early, what was never asked is marked (neither failed nor
infra), and `--resume --budget HIGHER` finishes it; the cost matches the tokens the scripted server reports."""

import asyncio
import json
import os
import subprocess
import sys

import pytest
import sqlite_utils

from conftest import ROOT, ChatServer, repair_reply, tmp_project
from loop.run.budget import Budget
from loop.errors import ConfigError

PER_SAMPLE = (1000 * 2.0 + 500 * 10.0) / 1e6  # 0.007: 1000 prompt and 500 completion tokens at 2 and 10 per million


def _server():
    return ChatServer(lambda body: repair_reply("correct_repair", 1000, 500))


@pytest.mark.slow
def test_a_budget_stops_the_batch_and_resume_with_more_finishes_it(tmp_path):
    cfg, db = tmp_project(tmp_path, endpoint="prompt_price = 2.0\ncompletion_price = 10.0\nmax_concurrency = 4\n")
    loop = [sys.executable, "-m", "loop", "--config", str(cfg)]
    env = {**os.environ, "OPENAI_API_KEY": "k"}
    server = _server()
    try:
        first = subprocess.run([*loop, "run", "--task", "merge_intervals_py", "--samples", "5", "--base-url",
                                server.url, "--model", "m", "--budget", "0.02"], capture_output=True, text=True,
                               timeout=300, env=env)
        hits_first = server.hits
        # 0.007 a sample: two fit in 0.02, a third would make 0.021
        assert hits_first == 2, first.stderr
        assert first.returncode == 3, first.stderr
        line = [l for l in first.stderr.splitlines() if l.startswith("error:")]
        assert len(line) == 1 and "coverage 0.40" in line[0] and "3 candidates not asked (over_budget)" in line[0]
        assert "3 not asked" in first.stdout and "--resume 1 --budget MORE" in first.stdout
        d = sqlite_utils.Database(db)
        rows = list(d.query("select status, reason, verdict from candidates order by sample"))
        assert [r["status"] for r in rows] == ["graded"] * 2 + ["not_asked"] * 3
        assert {(r["reason"], r["verdict"]) for r in rows[2:]} == {("over_budget", None)}
        (b,) = d.query("select * from batch_rates")
        assert b["cost"] == pytest.approx(2 * PER_SAMPLE) and b["cost"] <= 0.02
        assert (b["decided"], b["candidates"]) == (2, 5)

        again = subprocess.run([*loop, "run", "--resume", "1", "--budget", "0.05"], capture_output=True, text=True,
                               timeout=300, env=env)
        assert again.returncode == 0, again.stderr
        assert server.hits == 5  # only the three never asked were asked now
    finally:
        server.close()
    rows = list(d.query("select sample, status, verdict from candidates order by sample"))
    assert [r["sample"] for r in rows] == [0, 1, 2, 3, 4] and {r["verdict"] for r in rows} == {"stable_pass"}
    assert d["requests"].count == 5
    shown = json.loads(subprocess.run([*loop, "report", "--format", "json"], capture_output=True, text=True,
                                      timeout=60).stdout)
    (b,) = shown["batches"]
    assert (b["prompt_tokens"], b["completion_tokens"]) == (5000, 2500)
    assert b["cost"] == pytest.approx(5 * PER_SAMPLE) and b["coverage"] == 1.0


def test_a_budget_without_prices_is_refused_before_anything_is_written(tmp_path):
    cfg, db = tmp_project(tmp_path)
    server = _server()
    try:
        done = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "run", "--task",
                               "merge_intervals_py", "--samples", "2", "--base-url", server.url, "--model", "m",
                               "--budget", "1"], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "OPENAI_API_KEY": "k"})
    finally:
        server.close()
    assert done.returncode == 2 and server.hits == 0
    assert not db.exists()
    assert done.stderr.strip().startswith("error: --budget 1 needs a price") and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("budget,message", [
    ("nan", "--budget nan is not an amount"),
    ("inf", "--budget inf is not an amount"),
    ("1", "--budget 1 needs a price"),  # the shipped config has no prices
    ("-1", "'--budget': -1.0 is not in the range"),
])
def test_a_refused_budget_creates_no_database(tmp_path, monkeypatch, budget, message):
    """A refused --budget is said in one line naming the value, exit 2, and no runs.db is left behind (one
    used to be, empty: the store was opened before the budget was looked at)."""
    from click.testing import CliRunner

    from loop.cli import cli

    monkeypatch.chdir(ROOT)
    db = tmp_path / "runs.db"
    result = CliRunner().invoke(cli, ["run", "--task", "merge_intervals_py", "--samples", "1", "--budget", budget,
                                      "--db", str(db)], catch_exceptions=False)
    errors = [line for line in result.output.splitlines() if line.lower().startswith("error:")]
    assert result.exit_code == 2 and len(errors) == 1 and message in errors[0], result.output
    if not result.output.startswith("Usage:"):  # click's own refusals come with its usage lines
        assert len(result.output.strip().splitlines()) == 1, result.output
    assert not db.exists() and list(tmp_path.glob("runs.db*")) == []


def test_requests_in_flight_finish_and_later_ones_wait_then_stop():
    """With the per-sample cost known (0.007), 0.03 admits four samples at once; the fifth waits while
    they are in flight, and is refused once they settle at their real cost (nothing in flight is cut)."""

    async def scenario():
        b = Budget(0.03, 2.0, 10.0, spent=PER_SAMPLE, answered=1)
        assert [await b.admit(1) for _ in range(3)] == [True, True, True]
        assert b.in_flight == 3
        fifth = asyncio.create_task(b.admit(1))
        await asyncio.sleep(0)
        assert not fifth.done()  # 0.007 + 4 * 0.007 > 0.03: waits for those in flight
        for _ in range(3):
            b.charge(1000, 500)
            await b.settle(1, 1)
        assert await fifth is False and b.stopped
        assert await b.admit(1) is False  # stopped stays stopped
        assert b.spent == pytest.approx(4 * PER_SAMPLE) and b.spent <= 0.03

    asyncio.run(scenario())


def test_the_first_request_learns_the_cost_alone():
    async def scenario():
        b = Budget(1.0, 2.0, 10.0)
        assert await b.admit(1) is True
        second = asyncio.create_task(b.admit(1))
        await asyncio.sleep(0)
        assert not second.done()  # no cost per sample known yet: one request at a time
        b.charge(1000, 500)
        await b.settle(1, 1)
        assert await second is True and b.per_sample == pytest.approx(PER_SAMPLE)

    asyncio.run(scenario())
    with pytest.raises(ConfigError, match="needs a price"):
        Budget(1.0, 0.0, 0.0)
