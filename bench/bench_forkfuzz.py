"""The fork servers' fast path against `grade` (fresh sandboxes per attempt), side by side in one run: the
first N HumanEval references at the defaults (k=5, 200 relation trials), same seed; the grades must be
identical (verdict, checks, attempt digests, input counts) and the figure is the time ratio. `grade` runs
as many at once as there are fork servers.

    .venv/bin/python bench/bench_forkfuzz.py [--tasks N] [--servers S]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loop import tasks
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.grading.model import Options  # noqa: E402
from loop.kinds import grade
from loop.sandbox import SandboxConfig  # noqa: E402


def shape(g):
    return (g.verdict, [(c.check, c.passed, c.detail) for c in g.checks], [(a.status, a.digest) for a in g.attempts],
            g.inputs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=24)
    ap.add_argument("--servers", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    cfg = SandboxConfig(enabled=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        humaneval.import_humaneval(tasks.tasks_root(root), humaneval.read_problems()[:args.tasks])
        loaded = [tasks.load(root, n) for n in tasks.list_tasks(root)]
        start = time.perf_counter()
        fast = grade_batch([(t, t.reference) for t in loaded], cfg, servers=args.servers, k=5, trials=200, seed=1)
        fast_s = time.perf_counter() - start
        loaded = [tasks.load(root, n) for n in tasks.list_tasks(root)]  # fresh: no input cache shared
        start = time.perf_counter()
        with ThreadPoolExecutor(args.servers) as pool:  # as many at once as servers: each waits on sandboxes
            slow = list(pool.map(lambda t: grade(t, t.reference, cfg, Options(k=5, trials=200, seed=1)), loaded))
        slow_s = time.perf_counter() - start
    same = sum(shape(f) == shape(s) for f, s in zip(fast, slow))
    print(f"{len(loaded)} HumanEval references, k=5, 200 trials, sandbox on: fork servers ({args.servers}) "
          f"{fast_s:.1f} s, grade() {args.servers} at a time {slow_s:.1f} s: ratio {slow_s / fast_s:.1f}x; "
          f"identical grades {same}/{len(loaded)}; stable_pass {sum(g.verdict == 'stable_pass' for g in fast)}")


if __name__ == "__main__":
    main()
