"""The sandbox CPU of one fork-server job (issue 46): the candidate jobs of a real `loop grade` of HumanEval's 164
references at the defaults (k=5, 200 trials: 820 jobs, each repeat's share of the inputs), recorded once and
replayed through one fork server per checkout, the checkouts alternating round by round (a before/after on one
machine under the same load).

Each replay is a fresh process (PYTHONPATH: the checkout) in a cgroup v1 `cpuacct` group of its own: the
sandbox's CPU is the group's less the replaying process's own (rusage). The replies' verdict-bearing parts
(results, build errors, fault kinds) are compared between checkouts: a cut must not change them.

    .venv/bin/python bench/bench_forkjobs.py --checkout BEFORE --checkout AFTER [--rounds 3] [--jobs FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CGROUP = Path("/sys/fs/cgroup/cpuacct")


def record(out: Path) -> None:
    """Grade the 164 references at the defaults in-process and keep every candidate job a server ran."""
    sys.path.insert(0, str(ROOT))
    from loop import tasks
    from loop.datasets.humaneval import tasks as humaneval
    from loop.grading.model import Options
    from loop.kinds.function.fork import ForkPool, server
    from loop.sandbox import SandboxConfig

    jobs, submit = [], server.ForkServer.submit

    def kept(self, job, *a, **kw):
        if "limit" not in job:  # a candidate job, not the reference's
            jobs.append(dict(job))
        return submit(self, job, *a, **kw)

    server.ForkServer.submit = kept
    root = Path(tempfile.mkdtemp())
    humaneval.import_humaneval(tasks.tasks_root(root), humaneval.read_problems())
    loaded = [tasks.load(root, n) for n in tasks.list_tasks(root)]
    with ForkPool(SandboxConfig(enabled=True), 2, 5) as pool:
        grades = [f.result() for f in [pool.submit(t, t.reference, Options(k=5, trials=200, seed=7)) for t in loaded]]
    assert all(g.verdict == "stable_pass" for g in grades)
    out.write_text("".join(json.dumps(j) + "\n" for j in jobs))
    print(f"recorded {len(jobs)} jobs in {out}")


def replay(jobs_file: Path, out: Path) -> None:
    """Run every recorded job through one fork server (two in flight, as the pool keeps them)."""
    from loop.kinds.function.fork.server import ForkServer, Job
    from loop.sandbox import SandboxConfig

    jobs = [Job(json.loads(line)) for line in jobs_file.read_text().splitlines()]
    server = ForkServer(SandboxConfig(enabled=True))
    server.run(Job(jobs[0]))  # started, and the first fork paid
    before = resource.getrusage(resource.RUSAGE_SELF)
    digest, start, i, done = hashlib.sha256(), time.perf_counter(), 0, 0
    while done < len(jobs):
        while i < len(jobs) and len(server.inflight) < 2:
            server.submit(jobs[i], i)
            i += 1
        reply, tag, lost = server.receive()
        assert reply is not None and not lost, (tag, reply, lost)
        digest.update(json.dumps([tag, {k: reply.get(k) for k in ("results", "build_error", "fault")}]).encode())
        done += 1
    wall = time.perf_counter() - start
    server.close()
    after = resource.getrusage(resource.RUSAGE_SELF)
    own = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    out.write_text(json.dumps({"jobs": len(jobs), "own_cpu": own, "wall": wall, "digest": digest.hexdigest()}))


def measure(checkout: Path, jobs_file: Path) -> dict:
    group = CGROUP / f"loop-forkjobs-{os.getpid()}"
    group.mkdir()
    stats = Path(tempfile.mkstemp(suffix=".json")[1])
    try:
        subprocess.run([sys.executable, __file__, "--replay", str(jobs_file), str(stats)], check=True,
                       env={**os.environ, "PYTHONPATH": str(checkout)},
                       preexec_fn=lambda: (group / "cgroup.procs").write_text(str(os.getpid())))
        total = int((group / "cpuacct.usage").read_text()) / 1e9
    finally:
        group.rmdir()
    got = json.loads(stats.read_text())
    stats.unlink()
    # The server's start-up is in the group too; the replay's own CPU (JSON of the jobs, the pipes) is not the
    # sandbox's.
    return {**got, "sandbox_cpu": total - got["own_cpu"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkout", type=Path, action="append", help="loop checkouts to compare (default: this one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=Path, help="recorded jobs (default: record them now, with this checkout)")
    args = ap.parse_args()
    checkouts = args.checkout or [ROOT]
    jobs_file = args.jobs
    if jobs_file is None:
        jobs_file = Path(tempfile.mkstemp(suffix=".jsonl")[1])
        record(jobs_file)
    subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(c / "loop") for c in checkouts)], check=True)
    digests, per_job = {}, {c: [] for c in checkouts}
    for n in range(args.rounds):
        for c in (checkouts if n % 2 == 0 else checkouts[::-1]):
            r = measure(c, jobs_file)
            digests.setdefault(r["digest"], []).append(c.name)
            per_job[c].append(1000 * r["sandbox_cpu"] / r["jobs"])
            print(f"round {n + 1}, {c}: {r['jobs']} jobs, sandbox CPU {r['sandbox_cpu']:.2f} s "
                  f"({per_job[c][-1]:.2f} ms per job), wall {r['wall']:.2f} s, replies {r['digest'][:12]}",
                  flush=True)
    for c in checkouts:
        print(f"{c}: sandbox CPU per job, min {min(per_job[c]):.2f} ms, median "
              f"{sorted(per_job[c])[len(per_job[c]) // 2]:.2f} ms")
    if len(checkouts) > 1:
        first = checkouts[0]
        for c in checkouts[1:]:
            ratios = sorted(b / a for a, b in zip(per_job[first], per_job[c]))
            print(f"{c.name} / {first.name}: median of rounds {ratios[len(ratios) // 2]:.2f}, "
                  f"min/min {min(per_job[c]) / min(per_job[first]):.2f}")
    print("same replies" if len(digests) == 1 else f"REPLIES DIFFER: {digests}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--replay":
        replay(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
