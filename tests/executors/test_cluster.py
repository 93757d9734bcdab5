"""Issue 18: grading on a Dask cluster. A real `dask scheduler` and `dask worker` processes on 127.0.0.1, started
the way a user starts them; `loop` runs as a subprocess against them and the grades are read back from runs.db."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed
import pytest
import sqlite_utils

from conftest import EXAMPLES, ROOT, ChatServer
from loop.executors.base import die_with_parent as _die_with_parent
from test_demo_batch import DATA, _snapshot


LOOP = [sys.executable, "-m", "loop"]
DASK = str(Path(sys.executable).parent / "dask")
CODE = (EXAMPLES / "merge_intervals_py" / "correct_repair.py").read_text()


def _start(args: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    """A scheduler or a worker: its own process group (to kill it whole), and dead with pytest if pytest dies."""
    return subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, **(env or {})}, preexec_fn=_die_with_parent)


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the process group: a nanny and the worker it started
    except ProcessLookupError:
        pass
    proc.wait()


class Cluster:
    """A scheduler and its workers, each a separate process, as `dask scheduler` / `dask worker` start them."""

    def __init__(self, tmp: Path, workers: int = 2, scheduler_env: dict | None = None):
        self.tmp, self.procs = tmp, []
        tmp.mkdir(parents=True, exist_ok=True)
        file = tmp / "scheduler.json"
        self.scheduler = _start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(file)], tmp / "scheduler.log", scheduler_env)
        self.procs.append(self.scheduler)
        deadline = time.time() + 60
        while True:  # the scheduler writes its file in place: it may exist before it parses
            try:
                self.address = json.loads(file.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.client = distributed.Client(self.address, timeout=30, set_as_default=False)
        for i in range(workers):
            self.add_worker(f"w{i}")
        self.client.wait_for_workers(workers, timeout=90)

    def add_worker(self, name: str, env: dict | None = None) -> subprocess.Popen:
        proc = _start([DASK, "worker", self.address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                       "--name", name, "--local-directory", str(self.tmp / name)], self.tmp / f"{name}.log", env)
        self.procs.append(proc)
        return proc

    def worker_pids(self) -> dict[str, int]:
        return self.client.run(os.getpid)

    def close(self) -> None:
        self.client.close()
        for p in self.procs:
            _stop(p)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.close()


def _server() -> ChatServer:
    """An endpoint answering each request with a distinct correct repair (so none is a duplicate)."""
    def respond(body):
        content = f"```python\n{CODE}\n# sample {server.hits}\n```"
        return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1}}, {}
    server = ChatServer(respond)
    return server


def _config(tmp_path: Path, k: int, trials: int) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{tmp_path / "runs.db"}"\nk = {k}\ntrials = {trials}\n')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    return cfg


def _graded(db: Path) -> int:
    try:
        return sqlite_utils.Database(db).execute("select count(*) from candidates where verdict is not null").fetchone()[0]
    except Exception:  # noqa: BLE001 - not created yet
        return 0


def _wait_graded(db: Path, n: int, proc: subprocess.Popen, timeout: float = 120) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        got = _graded(db)
        if got >= n:
            return got
        time.sleep(0.1)
    raise AssertionError(f"fewer than {n} grades stored (process exit {proc.poll()})")


def _exactly_once(db: Path, k: int) -> list[dict]:
    """Every candidate graded once: one verdict, exactly k attempts (unique (candidate, repeat) rows)."""
    d = sqlite_utils.Database(db)
    rows = list(d["candidates"].rows_where(order_by="sample"))
    per = dict(d.execute("select candidate_id, count(*) from attempts group by candidate_id").fetchall())
    assert all(r["verdict"] is not None for r in rows)
    assert all(per.get(r["id"]) == k for r in rows), per
    return rows


@pytest.mark.slow
def test_demo_batch_on_the_cluster_matches_local(cluster, tmp_path):
    """`make run`'s batch (k=5, 200 trials) graded on two workers: the verdicts and failed checks recorded when it
    was graded locally (tests/data/demo_batch.json); the progress line shows the workers."""
    db = tmp_path / "runs.db"
    done = subprocess.run([*LOOP, "run", "--cluster", cluster.address], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "LOOP_DB": str(db)}, timeout=900)
    assert done.returncode == 0, done.stderr
    assert _snapshot(db) == json.loads(DATA.read_text())
    assert "workers 2" in done.stderr and "in flight" in done.stderr
    config = json.loads(sqlite_utils.Database(db).execute("select config from batches").fetchone()[0])
    assert config["loop"]["cluster"] == cluster.address


@pytest.mark.slow
def test_worker_without_bwrap_is_refused(cluster, tmp_path):
    """A third worker whose PATH has no bwrap: `loop grade --batch --cluster` names it and it leaves the cluster;
    every grade comes from the two good workers (one from the bad worker would be inconclusive). At k=1 without
    relations the workers grade on their fork servers."""
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = cluster.add_worker("nobwrap", env={"PATH": str(empty)})
    cluster.client.wait_for_workers(3, timeout=90)
    bad_addr = next(a for a, w in cluster.client.scheduler_info()["workers"].items() if w["name"] == "nobwrap")
    server, db, cfg = _server(), tmp_path / "runs.db", _config(tmp_path, k=1, trials=0)
    env = {**os.environ, "LOOP_CONFIG": str(cfg)}
    gen = subprocess.run([*LOOP, "generate", "--task", "merge_intervals_py", "--samples", "6", "--base-url",
                          server.url, "--model", "m", "--json"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert gen.returncode == 0, gen.stderr
    batch = json.loads(gen.stdout)["batch_id"]
    done = subprocess.run([*LOOP, "grade", "--batch", str(batch), "--cluster", cluster.address, "--json"], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    refused = [line for line in done.stderr.splitlines() if "refused" in line]
    assert refused == [f"warning: worker {bad_addr} refused: bubblewrap not found: 'bwrap' is not on PATH"]
    assert bad.wait(timeout=60) == 0  # the refused worker left (its nanny closed too)
    assert bad_addr not in cluster.client.scheduler_info()["workers"]
    rows = _exactly_once(db, 1)
    assert [r["verdict"] for r in rows] == ["stable_pass"] * 6


@pytest.mark.slow
def test_worker_killed_mid_batch(cluster, tmp_path):
    """kill -9 of a worker process while it grades: Dask reschedules its grades (the nanny starts a fresh worker,
    which gets loop's plugin when it registers); the batch finishes with every candidate graded exactly once."""
    server, db = _server(), tmp_path / "runs.db"
    proc = subprocess.Popen([*LOOP, "run", "--task", "merge_intervals_py", "--samples", "16", "--k", "2", "--trials",
                             "40", "--base-url", server.url, "--model", "m", "--cluster", cluster.address, "--json"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "LOOP_DB": str(db)})
    _wait_graded(db, 2, proc)
    busy = next(a for a, keys in cluster.client.processing().items() if keys)
    os.kill(cluster.worker_pids()[busy], signal.SIGKILL)
    killed_at = _graded(db)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert killed_at < 16, "the kill should land mid-batch"
    rows = _exactly_once(db, 2)
    assert len(rows) == 16 and {r["verdict"] for r in rows} == {"stable_pass"}
    assert json.loads(out.strip().splitlines()[-1])["verdicts"] == {"stable_pass": 16}
    cluster.client.wait_for_workers(2, timeout=90)  # the nanny's fresh worker, for the tests after this one


@pytest.mark.slow
def test_candidate_that_keeps_killing_workers_is_worker_lost(tmp_path):
    """Every worker that takes one of these grades is killed (as by a candidate that brings its host down): with the
    scheduler's allowed-failures at 0, each ends `inconclusive`, reason worker_lost, once; the batch finishes."""
    c = Cluster(tmp_path / "cluster", workers=1,
                scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"})
    server, db = _server(), tmp_path / "runs.db"
    try:
        proc = subprocess.Popen([*LOOP, "run", "--task", "merge_intervals_py", "--samples", "3", "--k", "2",
                                 "--trials", "40", "--base-url", server.url, "--model", "m", "--cluster", c.address,
                                 "--min-coverage", "0", "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "LOOP_DB": str(db)})
        kills = 0
        while proc.poll() is None:
            try:
                busy = [a for a, keys in c.client.processing().items() if keys]
                pids = c.worker_pids() if busy else {}
            except Exception:  # noqa: BLE001 - a worker restarting under us
                continue
            for addr in busy:
                if addr in pids:
                    os.kill(pids[addr], signal.SIGKILL)
                    kills += 1
            time.sleep(0.05)
        out, err = proc.communicate()
    finally:
        c.close()
    assert proc.returncode == 0, err
    assert kills >= 2
    rows = _exactly_once(db, 2)
    assert [(r["verdict"], r["reason"]) for r in rows] == [("inconclusive", "worker_lost")] * 3
    attempts = sqlite_utils.Database(db).execute("select distinct status, reason from attempts").fetchall()
    assert attempts == [("infra_unknown", "worker_lost")]
    assert json.loads(out.strip().splitlines()[-1])["verdicts"] == {"inconclusive": 3}


@pytest.mark.slow
def test_scheduler_lost_mid_batch_then_resume(tmp_path):
    """The scheduler killed mid-batch: the batch stops (exit 2) with one line saying how to finish it, the grades
    so far stay stored, and `loop run --resume` without --cluster grades the rest locally, each exactly once."""
    c = Cluster(tmp_path / "cluster", workers=1)
    server, db = _server(), tmp_path / "runs.db"
    env = {**os.environ, "LOOP_DB": str(db)}
    try:
        proc = subprocess.Popen([*LOOP, "run", "--task", "merge_intervals_py", "--samples", "12", "--k", "2",
                                 "--trials", "40", "--base-url", server.url, "--model", "m", "--cluster", c.address],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        _wait_graded(db, 2, proc)
        _stop(c.scheduler)
        out, err = proc.communicate(timeout=120)
    finally:
        c.close()
    assert proc.returncode == 2, err
    batch = sqlite_utils.Database(db).execute("select id, status from batches").fetchone()
    assert batch[1] == "failed"
    message = err.strip().splitlines()[-1]
    assert message.startswith(f"error: lost the Dask scheduler at {c.address}")
    assert message.endswith(f"`loop run --resume {batch[0]}` (with or without --cluster) finishes it")
    before = _graded(db)
    assert 2 <= before < 12
    done = subprocess.run([*LOOP, "run", "--resume", str(batch[0]), "--json"], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = _exactly_once(db, 2)
    assert len(rows) == 12 and {r["verdict"] for r in rows} == {"stable_pass"}


@pytest.mark.slow
def test_unreachable_scheduler_writes_nothing(tmp_path):
    """A scheduler nobody answers at, or an address that is none: one line naming it, exit 2, no batch in runs.db."""
    db = tmp_path / "runs.db"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[loop]\ndb = "{db}"\n[cluster]\nconnect_timeout = 1.0\n')
    (tmp_path / "harness").symlink_to(ROOT / "harness")
    done = subprocess.run([*LOOP, "--config", str(cfg), "run", "--task", "merge_intervals_py", "--samples", "1",
                           "--base-url", "http://127.0.0.1:9/v1", "--model", "m"], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "LOOP_CLUSTER": "tcp://127.0.0.1:9"}, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'")
    assert not db.exists() or sqlite_utils.Database(db)["batches"].count == 0
    bad = subprocess.run([*LOOP, "--config", str(cfg), "run", "--cluster", "garbage"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == ["error: 'garbage' is not a scheduler address (missing port number in "
                                               "address 'garbage'): give tcp://HOST:8786"]
    assert not db.exists() or sqlite_utils.Database(db)["batches"].count == 0


def test_cluster_selection(tmp_path):
    """--cluster wins over $LOOP_CLUSTER, which wins over [cluster] scheduler; none of them: this machine."""
    from loop import config
    from loop.run.settings import cluster_address

    path = tmp_path / "config.toml"
    path.write_text('[cluster]\nscheduler = "tcp://from-config:8786"\n')
    assert cluster_address(config.load(path, env={})) == "tcp://from-config:8786"
    from_env = config.load(path, env={"LOOP_CLUSTER": "tcp://from-env:8786"})
    assert cluster_address(from_env) == "tcp://from-env:8786"
    assert cluster_address(from_env, "tcp://flag:8786") == "tcp://flag:8786"
    assert cluster_address(config.load(None, root=tmp_path, env={})) is None
    path.write_text('[cluster]\nschedular = "x"\n')
    with pytest.raises(Exception, match="unknown key 'schedular' in \\[cluster\\]"):
        config.load(path, env={})


def test_a_worker_with_other_loop_code_is_refused():
    """The version check a worker's plugin makes: loop's version and a digest of its sources, both named."""
    import loop
    from loop import cachedir
    from loop.executors import cluster
    from loop.sandbox import SandboxConfig

    mine = cachedir.code_version()
    assert mine.startswith(f"{loop.__version__} (code ") and cluster.refusal(mine, SandboxConfig(enabled=False)) is None
    assert cluster.refusal("0.1.0 (code 000000000000)", SandboxConfig(enabled=False)) == \
        f"it runs loop {mine}, the coordinator loop 0.1.0 (code 000000000000)"
