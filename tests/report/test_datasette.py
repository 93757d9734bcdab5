"""`loop report --datasette` serves runs.db in a real Datasette on 127.0.0.1 with the canned queries shipped
in loop/datasette.yaml; the comparison query gives the hand-computed numbers (8/10 vs 3/10: 0.5 [0.0665, 0.7398])."""

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
import yaml

from loop.report.datasette import METADATA
from loop.store.db import RunStore


def _batch(store, verdicts: dict[str, list[str]], model: str) -> int:
    b = store.start_batch("run", seed=1, model=model)
    for sample, (task, verdict) in enumerate((t, v) for t, vs in verdicts.items() for v in vs):
        cid = store.add_candidate(b, task, sample, source="x", status="graded")
        store.db["candidates"].update(cid, {"verdict": verdict})
    return b


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(db) -> tuple[subprocess.Popen, int]:
    """`loop report --datasette` on a free port, in a process group of its own, once it answers (60 s at most)."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "loop", "report", "--db", str(db), "--datasette", "--port",
                               str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/-/versions.json", timeout=2)
            return server, port
        except httpx.TransportError:
            if server.poll() is None and time.monotonic() > deadline:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=10)
            if server.poll() is not None:
                raise AssertionError(f"Datasette did not answer (60 s at most): {server.stderr.read().decode()}")
            time.sleep(0.3)


@pytest.mark.slow
def test_datasette_serves_the_canned_comparison_as_json(tmp_path):
    db = tmp_path / "results.db"  # not runs.db: the queries follow the file's name
    with RunStore(db) as store:
        a = _batch(store, {"t": ["stable_pass"] * 8 + ["stable_fail"] * 2, "only_a": ["stable_pass"]}, "big")
        b = _batch(store, {"t": ["stable_pass"] * 3 + ["stable_fail"] * 7}, "small")
        cid = store.add_candidate(b, "t", 99, source="y", status="graded")
        store.db["candidates"].update(cid, {"verdict": "flaky"})
        store.db["checks"].insert({"candidate_id": cid, "check": "test:wobbly", "kind": "test", "passed": 0,
                                   "baseline": "pass", "candidate": "flaky", "transition": "regressed"})
    server, port = _serve(db)
    try:
        base = f"http://127.0.0.1:{port}/results"
        rows = httpx.get(f"{base}/comparisons.json", params={"a": a, "b": b, "_shape": "array"}, timeout=10).json()
        by_task = {r["task"]: r for r in rows}
        t = by_task["t"]
        assert (t["a_passed"], t["a_decided"], t["b_passed"], t["b_decided"]) == (8, 10, 3, 11)
        # b has one more decided (the flaky one): 8/10 vs 3/11 -- compare with loop's own numbers
        from loop.report.stats import newcombe

        d, lo, hi = newcombe(8, 10, 3, 11)
        assert t["difference"] == pytest.approx(d) and t["low"] == pytest.approx(lo, abs=2e-4)
        assert t["high"] == pytest.approx(hi, abs=2e-4) and t["verdict"] == "better"
        assert by_task["only_a"]["verdict"] == "only in batch a"
        assert rows[-1]["task"] == "(all tasks)" and (rows[-1]["a_passed"], rows[-1]["a_decided"]) == (9, 11)
        flaky = httpx.get(f"{base}/flaky_tests.json", params={"_shape": "array"}, timeout=10).json()
        assert flaky == [{"task": "t", "check": "test:wobbly", "flaky_grades": 1, "batches": str(b),
                          "first_candidate": cid}]
        rates = httpx.get(f"{base}/pass_rates.json", params={"_shape": "array"}, timeout=10).json()
        assert {(r["batch_id"], r["task"], r["passed"], r["decided"]) for r in rates} == {
            (a, "only_a", 1, 1), (a, "t", 8, 10), (b, "t", 3, 11)}
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.wait(timeout=30)


def test_the_comparison_query_matches_the_hand_computed_interval_and_every_query_runs(tmp_path):
    """The shipped SQL itself, on 8/10 vs 3/10: the same numbers as `loop report --compare`."""
    db = tmp_path / "runs.db"
    with RunStore(db) as store:
        a = _batch(store, {"t": ["stable_pass"] * 8 + ["stable_fail"] * 2}, "big")
        b = _batch(store, {"t": ["stable_pass"] * 3 + ["stable_fail"] * 7}, "small")
        queries = yaml.safe_load(METADATA.read_text())["databases"]["runs"]["queries"]
        assert {"pass_rates", "batch_rates", "comparisons", "cost", "flaky_tests"} <= set(queries)
        for name, q in queries.items():
            store.db.execute(q["sql"], {"a": a, "b": b}).fetchall()  # each one runs on a real runs.db
        cur = store.db.execute(queries["comparisons"]["sql"], {"a": str(a), "b": str(b)})
        row = dict(zip([c[0] for c in cur.description], cur.fetchone()))
    assert row["difference"] == pytest.approx(0.5)
    assert row["low"] == pytest.approx(0.0665, abs=1e-4) and row["high"] == pytest.approx(0.7398, abs=1e-4)


def test_datasette_on_a_missing_database_is_a_one_line_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "loop", "report", "--db", str(tmp_path / "nope.db"), "--datasette"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {tmp_path / 'nope.db'}: no such database"
    assert not (tmp_path / "nope.db").exists()


@pytest.mark.slow
def test_sigterm_to_loop_stops_datasette_too(tmp_path):
    db = tmp_path / "runs.db"
    RunStore(db).close()
    loop, port = _serve(db)
    try:
        loop.send_signal(signal.SIGTERM)  # to loop alone, as a service manager or `kill PID` sends it
        assert loop.wait(timeout=30) == 0
        with pytest.raises(httpx.TransportError):  # nothing left listening
            httpx.get(f"http://127.0.0.1:{port}/-/versions.json", timeout=2)
    finally:
        try:  # whatever is left of the group (a Datasette that outlived loop, were the test failing)
            os.killpg(loop.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
