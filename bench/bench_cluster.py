"""Grading on a Dask cluster against grading locally, side by side in one run, on the same cores.

The same replayed batch (distinct correct merge_intervals_py repairs from a cassette) is graded by `loop run`
locally (2 grading workers) and by `loop run --cluster` on a local scheduler with two `dask worker --nworkers 1
--nthreads 1` (started before the timing, as a cluster is). Two batches: 2,000 candidates at k=1 without relations
(fork servers) and 60 candidates at k=5 with 200 relation trials (process pools). Prints, per batch, grades/s both
ways, the throughput ratio cluster / local (goal >= 0.8) and the scheduler's CPU time per grade (its overhead),
from which the scheduler's ceiling in grades/s follows.

Run: .venv/bin/python bench/bench_cluster.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from bench_loop import write_cassette  # noqa: E402

DASK = str(Path(sys.executable).parent / "dask")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """user + system CPU time of one process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def start_cluster(tmp: Path, workers: int) -> tuple[str, list[subprocess.Popen]]:
    import distributed

    file = tmp / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(file)], **quiet)]
    while not file.exists():
        time.sleep(0.1)
    address = json.loads(file.read_text())["address"]
    for i in range(workers):
        procs.append(subprocess.Popen([DASK, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                                       "--local-directory", str(tmp / f"w{i}")], **quiet))
    with distributed.Client(address, timeout=60, set_as_default=False) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def run(cfg: Path, cassette: Path, n: int, *extra: str) -> float:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "loop", "--config", str(cfg), "run", "--task", "merge_intervals_py",
                          "--samples", str(n), "--replay", str(cassette), "--json", *extra], cwd=ROOT,
                         capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"loop run failed ({out.returncode}): {out.stderr[-2000:]}")
    verdicts = json.loads(out.stdout.strip().splitlines()[-1])["verdicts"]
    assert verdicts == {"stable_pass": n}, verdicts
    return took


def idle_rate(scheduler: int, seconds: float = 5.0) -> float:
    """CPU seconds per second the scheduler spends with no work (heartbeats, its own bookkeeping)."""
    before = cpu_seconds(scheduler)
    time.sleep(seconds)
    return (cpu_seconds(scheduler) - before) / seconds


def compare(tmp: Path, address: str, scheduler: int, n: int, k: int, trials: int) -> None:
    cassette = write_cassette(tmp / f"batch-{n}.jsonl", n)
    idle = idle_rate(scheduler)
    times = {}
    for where in ("local", "cluster"):
        cfg = tmp / f"{where}-{n}.toml"
        cfg.write_text(f'[loop]\ndb = "{tmp / f"{where}-{n}.db"}"\nk = {k}\ntrials = {trials}\nconcurrency = 2\n'
                       '[endpoint]\nmax_concurrency = 8\nmodel = "bench"\n')
        before = cpu_seconds(scheduler)
        times[where] = run(cfg, cassette, n, *(["--cluster", address] if where == "cluster" else []))
        sched = cpu_seconds(scheduler) - before
    local, cluster = n / times["local"], n / times["cluster"]
    per = max(0.0, sched - idle * times["cluster"]) / n  # what grading added to the scheduler's idle load
    print(f"{n} candidates, k={k}, {trials} trials: local {local:.2f} grades/s ({times['local']:.1f} s), "
          f"2-worker cluster {cluster:.2f} grades/s ({times['cluster']:.1f} s): ratio {cluster / local:.2f} "
          f"(goal >= 0.8); scheduler CPU {per * 1000:.2f} ms per grade above its idle {idle * 1000:.0f} ms/s "
          f"(one scheduler core: ~{1 / per if per else float('inf'):.0f} grades/s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller batches, for a smoke run")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "harness").symlink_to(ROOT / "harness")
        address, procs = start_cluster(tmp, workers=2)
        try:
            compare(tmp, address, procs[0].pid, 200 if a.quick else 2000, k=1, trials=0)
            compare(tmp, address, procs[0].pid, 10 if a.quick else 60, k=5, trials=200)
        finally:
            for p in procs:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


if __name__ == "__main__":
    main()
