"""Scenarios 14-16: kill -9 at several points then --resume, an interrupted migration, malformed inputs.

Every malformed input gets a one-line error naming the file and the problem, exit 2, and no row in runs.db.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import sqlite_utils
from click.testing import CliRunner

from loop.cli import cli

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from conftest import EXAMPLES, ROOT  # noqa: E402
from test_run import SlowServer  # noqa: E402

LOOP = [sys.executable, "-m", "loop"]


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def assert_nothing_written(db):
    if db.exists():
        d = sqlite_utils.Database(db)
        assert d["batches"].count == 0 and d["candidates"].count == 0 and d["attempts"].count == 0


def _received(db) -> bool:
    try:
        return sqlite_utils.Database(db).execute(
            "select count(*) from candidates where status != 'pending'").fetchone()[0] > 0
    except Exception:
        return False


@pytest.mark.slow
def test_repeated_kill_9_then_resume(tmp_path):
    """Kill the batch three times at different moments (mid-request, mid-grade, mid-write), then finish it."""
    server = SlowServer(0.15)
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\nk = 2\ntrials = 20\n[endpoint]\nmax_concurrency = 2\n')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    first = [*LOOP, "--config", str(cfg), "run", "--task", "merge_intervals_py", "--task", "dedupe_words_py",
             "--samples", "5", "--base-url", server.url, "--model", "m"]
    batch = None
    for delay in (1.2, 0.7, 1.5):
        args = first if batch is None else [*LOOP, "--config", str(cfg), "run", "--resume", str(batch),
                                             "--base-url", server.url]
        proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(delay)
        while batch is None and not _received(db) and proc.poll() is None:
            time.sleep(0.05)  # the first kill lands once the batch exists and a reply was stored
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        batch = batch or sqlite_utils.Database(db).execute("select max(id) from batches").fetchone()[0]
        assert sqlite_utils.Database(db).execute("pragma integrity_check").fetchone()[0] == "ok"
    done = subprocess.run([*LOOP, "--config", str(cfg), "run", "--resume", str(batch), "--base-url", server.url],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    d = sqlite_utils.Database(db)
    rows = list(d["candidates"].rows_where("batch_id = ?", [batch]))
    assert len(rows) == 10 and len({(r["task"], r["sample"]) for r in rows}) == 10
    assert all(r["verdict"] == ("stable_fail" if r["task"] == "dedupe_words_py" else "stable_pass") for r in rows)
    dup_attempts = d.execute("select candidate_id, repeat, count(*) c from attempts group by candidate_id, repeat "
                             "having c > 1").fetchall()
    assert dup_attempts == []
    assert d.execute("pragma integrity_check").fetchone()[0] == "ok"
    server.httpd.shutdown()


def test_interrupted_migration_is_applied_exactly_once(tmp_path, monkeypatch):
    from loop.store import migrations as m
    from loop.store.db import RunStore

    db = tmp_path / "runs.db"
    real = m.migrations._migrations[1].fn

    def crash(database):
        real(database)  # the view is created ... and then the process "dies" before the record is written
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(m.migrations._migrations[1], "fn", crash)
    with pytest.raises(KeyboardInterrupt):
        RunStore(db)
    d = sqlite_utils.Database(db)
    assert "pass_rates" not in d.view_names()  # rolled back with the migration's transaction
    assert [r["name"] for r in d["_sqlite_migrations"].rows] == ["001_core"]
    monkeypatch.setattr(m.migrations._migrations[1], "fn", real)
    RunStore(db).close()
    RunStore(db).close()
    names = [r["name"] for r in d["_sqlite_migrations"].rows]
    assert names.count("002_pass_rates") == 1 and "pass_rates" in d.view_names()
    assert len(names) == len(set(names)) == len(m.migrations._migrations)


@pytest.mark.parametrize("text, problem", [
    ("[loop]\nk = 'five'\n", "key 'loop.k' must be int"),
    ("[loop]\nbogus = 1\n", "unknown key 'bogus' in [loop]"),
    ("[loop\nk = 1\n", "not valid TOML"),
    ("[nonsense]\n", "unknown section or key 'nonsense'"),
])
def test_malformed_config(tmp_path, text, problem):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    db = tmp_path / "runs.db"
    code, out = invoke("--config", cfg, "grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" /
                       "correct_repair.py", "--db", db)
    assert code == 2 and problem in out and "config.toml" in out and len(out.strip().splitlines()) == 1
    assert_nothing_written(db)


def _broken_task(task_copy, change):
    folder, cfg = task_copy("merge_intervals_py")
    change(folder)
    return cfg


@pytest.mark.parametrize("change, problem", [
    (lambda f: (f / "baseline.py").unlink(), "baseline.py: baseline file is missing"),
    (lambda f: (f / "goldens" / "case_001.out").write_text("[[1, 6], "), "case_001.in: golden does not parse"),
    (lambda f: (f / "tests.json").write_text((f / "tests.json").read_text().replace('"expected": [[1, 5]]', '"x": 1')),
     "test 'touching_pair' has no 'expected'"),
    (lambda f: (f / "tests.json").write_text("[{"), "tests.json: not valid JSON"),
])
def test_malformed_task(loop_cli, task_copy, change, problem, tmp_path):
    cfg = _broken_task(task_copy, change)
    code, out = loop_cli("grade", "merge_intervals_py", EXAMPLES / "merge_intervals_py" / "correct_repair.py",
                         config=cfg)
    assert code == 2 and problem in out and len(out.strip().splitlines()) == 1
    assert_nothing_written(tmp_path / "runs.db")


def test_malformed_candidates_and_cassettes(tmp_path):
    db = tmp_path / "runs.db"
    big = tmp_path / "big.py"
    big.write_bytes(b"# x\n" * (50 * 1024 * 1024 // 4))
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"def merge_intervals(x):\n    return x  # caf\xe9\n")
    empty = tmp_path / "empty.py"
    empty.write_text("")
    for path, problem in ((big, "more than the"), (latin, "not UTF-8"), (empty, "is empty")):
        code, out = invoke("grade", "merge_intervals_py", path, "--db", db)
        assert code == 2 and path.name in out and problem in out and len(out.strip().splitlines()) == 1
    cassette = tmp_path / "c.jsonl"
    cassette.write_text('{"request": {"body": {}}, "status": 200, "headers": {}, "body": "{}"}\n{oops\n')
    code, out = invoke("generate", "--replay", cassette, "--db", db)
    assert code == 2 and "c.jsonl:2:" in out
    assert_nothing_written(db)
