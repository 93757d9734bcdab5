"""The parent's own CPU time while fork servers grade HumanEval's 164 references: what loop's decision code costs
(decoding replies, checks, relations, digests), apart from the sandboxes' work and the machine's load. Wall time
moves with the load; the parent's CPU time barely does, so two checkouts compare fairly on a busy machine:

    PYTHONPATH=CHECKOUT .venv/bin/python bench/bench_parent.py CHECKOUT [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("checkout", type=Path, help="the loop checkout to time (put it on PYTHONPATH too)")
ap.add_argument("--rounds", type=int, default=1)
args = ap.parse_args()
sys.path.insert(0, str(args.checkout))
sys.path.insert(0, str(args.checkout / "bench"))

import bench_humaneval  # noqa: E402
from loop import tasks  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

try:
    from loop.kinds.function.fork import grade_batch  # noqa: E402
except ImportError:  # a checkout from before the fork servers moved into the function kind
    from loop.executors.fork import grade_batch  # noqa: E402

problems = humaneval.read_problems()
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    humaneval.import_humaneval(tasks.tasks_root(root), problems)
    bench_humaneval.write_samples(problems, root, root / "samples.jsonl")
    rows = [json.loads(line) for line in open(root / "samples.jsonl")]
    loaded = [tasks.load(root, humaneval.task_name(r["task_id"])) for r in rows]
    items = [(t, t.contract + r["completion"]) for t, r in zip(loaded, rows)]
    for _ in range(args.rounds):
        for k, trials in ((5, 200), (1, 0)):
            cpu, wall = time.process_time(), time.perf_counter()
            grades = grade_batch(items, SandboxConfig(enabled=True), servers=2, k=k, trials=trials, seed=11)
            print(f"{args.checkout} k={k} trials={trials}: parent CPU {time.process_time() - cpu:.2f} s, wall "
                  f"{time.perf_counter() - wall:.2f} s, {sum(g.verdict == 'stable_pass' for g in grades)}/"
                  f"{len(grades)} stable_pass", flush=True)
