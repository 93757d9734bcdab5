"""`loop report --compare A B`: two batches built so the expected difference and interval are known by
hand (8/10 vs 3/10: 0.5 with Newcombe's hybrid score interval [0.0665, 0.7398])."""

import csv
import io
import json

import pytest
import sqlite_utils
from click.testing import CliRunner

from loop.cli import cli
from loop.report.stats import newcombe
from loop.store.db import RunStore


def batch(store: RunStore, verdicts: dict[str, list[str]], model: str | None = None, seed: int = 1) -> int:
    b = store.start_batch("grade", seed=seed, model=model)
    sample = 0
    for task, vs in verdicts.items():
        for v in vs:
            cid = store.add_candidate(b, task, sample, source="x", status="graded")
            store.db["candidates"].update(cid, {"verdict": v})
            sample += 1
    return b


def report(db, *args):
    result = CliRunner().invoke(cli, ["report", "--db", str(db), *map(str, args)], catch_exceptions=False)
    return result.exit_code, result.output


def test_newcombe_matches_the_hand_computed_interval():
    d, lo, hi = newcombe(8, 10, 3, 10)
    assert d == pytest.approx(0.5) and lo == pytest.approx(0.0665, abs=1e-4) and hi == pytest.approx(0.7398, abs=1e-4)
    assert newcombe(3, 10, 8, 10) == pytest.approx((-0.5, -0.7398, -0.0665), abs=1e-4)
    assert newcombe(1, 0, 1, 2) is None


def test_compare_two_batches_per_task_overall_and_one_sided_tasks(tmp_path):
    db = tmp_path / "runs.db"
    store = RunStore(db)
    a = batch(store, {"t": ["stable_pass"] * 8 + ["stable_fail"] * 2, "only_a": ["stable_pass"],
                      "u": ["stable_pass"] * 2 + ["infra_unknown"] * 2})
    b = batch(store, {"t": ["stable_pass"] * 3 + ["stable_fail"] * 7, "u": ["stable_pass", "stable_fail"]})
    store.close()
    code, out = report(db, "--compare", a, b, "--format", "json")
    assert code == 0
    rows = {r["task"]: r for r in json.loads(out)["rows"]}
    t = rows["t"]
    assert (t["a_passed"], t["a_decided"], t["b_passed"], t["b_decided"]) == (8, 10, 3, 10)
    assert t["difference"] == pytest.approx(0.5) and t["low"] == pytest.approx(0.0665, abs=1e-4)
    assert t["high"] == pytest.approx(0.7398, abs=1e-4) and t["verdict"] == "better"
    assert rows["only_a"]["verdict"] == "only in batch a" and rows["only_a"]["difference"] is None
    assert rows["u"]["a_coverage"] == 0.5 and "coverage below 0.9 in a" in rows["u"]["verdict"]
    assert rows["u"]["verdict"].startswith("no detectable difference")
    overall = rows["(all tasks)"]
    assert (overall["a_passed"], overall["a_decided"], overall["b_passed"], overall["b_decided"]) == (11, 13, 4, 12)
    code, table = report(db, "--compare", a, b)
    assert code == 0 and "+0.5000 [0.0665, 0.7398]" in table and "only in batch a" in table
    code, text = report(db, "--compare", a, b, "--format", "csv")
    assert {r["task"] for r in csv.DictReader(io.StringIO(text))} == {"t", "u", "only_a", "(all tasks)"}
    code, page = report(db, "--compare", b, a, "--format", "html")
    assert code == 0 and "<table id='compare'>" in page and "worse" in page and "http" not in page


def test_compare_with_a_missing_batch_is_a_one_line_error(tmp_path):
    db = tmp_path / "runs.db"
    RunStore(db).close()
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--compare", "1", "2"])
    assert result.exit_code == 2 and "no batch 1" in result.output
    assert sqlite_utils.Database(db)["batches"].count == 0


@pytest.mark.slow
def test_a_batch_that_decided_too_little_exits_3_naming_coverage_and_reason(tmp_path):
    """Every request refused (nothing listens): coverage 0, exit 3 with one line; --min-coverage 0 lets it pass."""
    import os
    import socket
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections are refused
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = 1\ntrials = 0\n[endpoint]\nmax_attempts = 1\n')
    (tmp_path / "harness").symlink_to(root / "harness")
    args = [sys.executable, "-m", "loop", "--config", str(cfg), "run", "--task", "merge_intervals_py", "--samples",
            "2", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, env={**os.environ, "OPENAI_API_KEY": "k"})
    assert done.returncode == 3, done.stderr
    line = [l for l in done.stderr.splitlines() if l.startswith("error:")]
    assert len(line) == 1 and "coverage 0.00" in line[0] and "0.8" in line[0] and "connection" in line[0]
    lenient = subprocess.run(args + ["--min-coverage", "0"], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "OPENAI_API_KEY": "k"})
    assert lenient.returncode == 0, lenient.stderr


@pytest.mark.slow
def test_cost_follows_the_tokens_the_endpoint_reported(tmp_path):
    """4 samples, each answered with 1000 prompt and 500 completion tokens, at 2 and 10 per million."""
    import os
    import subprocess
    import sys

    from conftest import ChatServer, repair_reply, tmp_project

    server = ChatServer(lambda body: repair_reply("correct_repair", 1000, 500))
    cfg, db = tmp_project(tmp_path, endpoint="prompt_price = 2.0\ncompletion_price = 10.0\n")
    loop = [sys.executable, "-m", "loop", "--config", str(cfg)]
    try:
        done = subprocess.run([*loop, "run", "--task", "merge_intervals_py", "--samples", "4", "--base-url",
                               server.url, "--model", "m"], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "OPENAI_API_KEY": "k"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    shown = json.loads(subprocess.run([*loop, "report", "--format", "json"], capture_output=True, text=True,
                                      timeout=60).stdout)
    (b,) = shown["batches"]
    assert (b["prompt_tokens"], b["completion_tokens"]) == (4000, 2000)
    assert b["cost"] == pytest.approx(4 * (1000 * 2 + 500 * 10) / 1e6)
    assert b["cost_per_decided"] == pytest.approx(0.007) and b["cost_per_pass"] == pytest.approx(0.007)
    (t,) = shown["costs"]
    assert t["task"] == "merge_intervals_py" and t["cost"] == pytest.approx(0.028)
    table = subprocess.run([*loop, "report"], capture_output=True, text=True, timeout=60).stdout
    assert "0.0280" in table and "(batch)" in table


def test_compare_by_model_adds_up_every_batch_of_each_model(tmp_path):
    db = tmp_path / "runs.db"
    store = RunStore(db)
    batch(store, {"t": ["stable_pass"] * 4 + ["stable_fail"]}, model="big", seed=1)
    batch(store, {"t": ["stable_pass"] * 4 + ["stable_fail"]}, model="big", seed=2)
    batch(store, {"t": ["stable_pass"] * 3 + ["stable_fail"] * 7}, model="small", seed=1)
    store.close()
    code, out = report(db, "--compare", "big", "small", "--by", "model", "--format", "json")
    assert code == 0
    t = {r["task"]: r for r in json.loads(out)["rows"]}["t"]
    assert (t["a_passed"], t["a_decided"], t["b_passed"], t["b_decided"]) == (8, 10, 3, 10)
    assert t["low"] == pytest.approx(0.0665, abs=1e-4) and t["verdict"] == "better"
    code, out = report(db, "--compare", "1", "2", "--by", "seed", "--format", "json")
    t = {r["task"]: r for r in json.loads(out)["rows"]}["t"]
    assert (t["a_passed"], t["a_decided"], t["b_passed"], t["b_decided"]) == (7, 15, 4, 5)
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--compare", "big", "nobody", "--by", "seed"])
    assert result.exit_code == 2 and "no candidates" in result.output
