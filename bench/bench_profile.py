"""Where a `loop grade --samples` of HumanEval's 164 references spends its time (issue 46's profile): for each
run, its wall time, the CPU of loop's own process (the parent: imports, input generation, relations, job and
reply coding, runs.db) and of everything it started (the sandboxes: fork servers and their forked children),
fork-server jobs (one fork each), bytes to and from the sandboxes, and rows written to runs.db.

Runs, each a fresh `loop` process: `cold` (the defaults, k=5 and 200 trials, under a seed never used before:
inputs generated and the reference run on them), `remembered` (the same seed again: tables read from the cache)
and `k1` (`--k 1 --trials 0`). With several checkouts, the runs alternate between them (a before/after side by
side on one machine); `--workers 2 4 8` repeats them at each worker count (config `concurrency`), and
`--cluster N` adds the same runs on a local Dask cluster of N one-thread workers.

The whole tree's CPU comes from a cgroup v1 `cpuacct` group (root on Linux); where none can be made it prints
n/a. The sandboxes' processes are not waited on by loop, so rusage alone would miss them.

    .venv/bin/python bench/bench_profile.py [--checkout DIR ...] [--rounds 2] [--workers 2] [--cluster 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CGROUP = Path("/sys/fs/cgroup/cpuacct")


def inner(out: Path, argv: list[str]) -> None:
    """Run loop's CLI in this process with counters on the fork-server pipes and runs.db."""
    from loop.kinds.function.fork import server as fork_server
    from loop.sandbox import worker
    from loop.store import db as store_db

    counts = {"jobs": 0, "sent_bytes": 0, "received_bytes": 0, "db_rows": 0}
    submit, write, next_line = fork_server.ForkServer.submit, worker.Worker._write, worker.Worker._next_line
    insert = getattr(store_db, "_insert_rows", None)

    def counted_submit(self, job, *a, **kw):
        counts["jobs"] += 1
        return submit(self, job, *a, **kw)

    def counted_write(self, payload):
        counts["sent_bytes"] += len(payload)
        return write(self, payload)

    def counted_line(self):
        line = next_line(self)
        counts["received_bytes"] += len(line)
        return line

    fork_server.ForkServer.submit, worker.Worker._write = counted_submit, counted_write
    worker.Worker._next_line = counted_line
    if insert is not None:
        def counted_insert(conn, table, rows):
            counts["db_rows"] += len(rows)
            return insert(conn, table, rows)
        store_db._insert_rows = counted_insert
    from loop.cli import cli

    try:
        cli.main(argv, prog_name="loop", standalone_mode=False)
    finally:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        out.write_text(json.dumps({**counts, "parent_cpu": ru.ru_utime + ru.ru_stime}))


def run(checkout: Path, project: Path, *flags: str) -> dict:
    """One `loop grade --samples` in a fresh process (in a cpuacct group of its own where possible)."""
    group = CGROUP / f"loop-bench-{os.getpid()}"
    try:
        group.mkdir()
    except OSError:
        group = None
    stats = project / "stats.json"
    argv = ["--config", str(project / "config.toml"), "grade", "--samples", str(project / "samples.jsonl"), "--json",
            *flags]
    env = {**os.environ, "PYTHONPATH": str(checkout), "XDG_CACHE_HOME": str(project / "cache")}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--inner", str(stats), "--", *argv], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            preexec_fn=(lambda: (group / "cgroup.procs").write_text(str(os.getpid()))) if group else None)
    out = proc.communicate()[0]
    wall = time.perf_counter() - start
    total = None
    if group is not None:
        total = int((group / "cpuacct.usage").read_text()) / 1e9
        group.rmdir()
    if proc.returncode != 0:
        raise SystemExit(f"loop grade --samples {' '.join(flags)} failed ({proc.returncode})")
    got = json.loads(stats.read_text())
    verdicts = json.loads(out.decode().strip().splitlines()[-1])["verdicts"]
    return {**got, "wall": wall, "total_cpu": total, "verdicts": verdicts}


def show(label: str, r: dict) -> str:
    children = "n/a" if r["total_cpu"] is None else f"{r['total_cpu'] - r['parent_cpu']:.2f}"
    return (f"{label}: wall {r['wall']:.2f} s, parent CPU {r['parent_cpu']:.2f} s, sandboxes CPU {children} s, "
            f"jobs (forks) {r['jobs']}, to sandboxes {r['sent_bytes'] / 1e6:.1f} MB, from them "
            f"{r['received_bytes'] / 1e6:.1f} MB, runs.db rows {r['db_rows']}, {r['verdicts']}")


def project_for(tmp: Path, workers: int, cluster: str | None = None) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT))
    from bench_humaneval import compile_tasks, write_samples
    from loop import tasks
    from loop.datasets.humaneval import tasks as humaneval

    project = tmp / f"w{workers}{'-dask' if cluster else ''}"
    project.mkdir()
    problems = humaneval.read_problems()
    humaneval.import_humaneval(tasks.tasks_root(project), problems)
    compile_tasks(project)
    extra = f'\n[cluster]\nscheduler = "{cluster}"\n' if cluster else ""
    (project / "config.toml").write_text(f'[loop]\ndb = "{project / "runs.db"}"\nconcurrency = {workers}\n{extra}')
    write_samples(problems, project, project / "samples.jsonl")
    return project


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", type=Path, action="append", help="loop checkouts to compare (default: this one)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--workers", type=int, nargs="+", default=[os.cpu_count() or 2])
    ap.add_argument("--cluster", type=int, default=0, help="also on a local Dask cluster of N workers (0: no)")
    args = ap.parse_args()
    checkouts = args.checkout or [ROOT]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(c / "loop") for c in checkouts)], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        setups = [(f"workers {w}", project_for(Path(tmp), w)) for w in args.workers]
        procs = []
        if args.cluster:
            from bench_cluster import start_cluster

            address, procs = start_cluster(Path(tmp), args.cluster)
            setups.append((f"dask {args.cluster} workers", project_for(Path(tmp), args.cluster, address)))
        try:
            for label, project in setups:
                for c in checkouts:  # polarity checked once per checkout, remembered
                    run(c, project, "--k", "1", "--trials", "0")
                for n in range(args.rounds):
                    seed = str(random.randrange(10 ** 6, 10 ** 9))  # never used before
                    for c in checkouts:
                        where = f"{label}, {c.name or c}, round {n + 1}"
                        print(show(f"{where}, cold (seed {seed})", run(c, project, "--seed", seed)), flush=True)
                        print(show(f"{where}, remembered", run(c, project, "--seed", seed)), flush=True)
                        print(show(f"{where}, k1", run(c, project, "--k", "1", "--trials", "0")), flush=True)
        finally:
            for p in procs:
                p.kill()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--inner":
        inner(Path(sys.argv[2]), sys.argv[4:])
    else:
        main()
