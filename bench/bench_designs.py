"""The old design (every repeat runs every trial) against the new one (the trials split across the repeats,
counterexamples confirmed in every repeat's environment), in one run: the same verdicts on the project's
corpora (tests/humaneval_corpus, HumanEval with loop's contracts) and on bench_mutants.py's mutants of the
references, under each seed, at k=5 and 200 trials, through the fork servers. Every candidate whose verdict
moves is listed with its failing checks under both; each design's time is printed beside the other's.

    .venv/bin/python bench/bench_designs.py [--seeds 1 2 3] [--per-task 2] [--servers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_corpus import CORPUS, load  # noqa: E402
from bench_mutants import mutants  # noqa: E402

from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--per-task", type=int, default=2, help="mutants per problem")
    ap.add_argument("--servers", type=int, default=2)
    args = ap.parse_args()
    by_name = load(contracts=True)
    items = []  # (label, task, source)
    for kind in ("correct", "wrong"):
        for path in sorted((CORPUS / kind).glob("p*.py")):
            task = by_name[humaneval.task_name(f"HumanEval/{int(path.name[1:4])}")]
            items.append((f"corpus/{kind}/{path.name}", task, path.read_text()))
    for task in by_name.values():
        items += [(f"mutant/{task.name}/{i}:{op}", task, src) for i, (op, src) in enumerate(mutants(task, args.per_task))]
    print(f"{len(items)} candidates: {sum(l.startswith('corpus') for l, _, _ in items)} from the corpora, "
          f"the rest mutants; k=5, 200 trials, {args.servers} fork servers")
    cfg = SandboxConfig()
    for seed in args.seeds:
        grades, secs = {}, {}
        for label, per in (("old", True), ("new", False)):
            start = time.perf_counter()
            grades[label] = grade_batch([(t, s) for _, t, s in items], cfg, seed=seed, servers=args.servers, k=5,
                                        trials=200, trials_per_repeat=per)
            secs[label] = time.perf_counter() - start
        moved = [(label, o, n) for (label, _, _), o, n in zip(items, grades["old"], grades["new"])
                 if o.verdict != n.verdict]
        print(f"seed {seed}: old {secs['old']:.1f} s, new {secs['new']:.1f} s ({secs['old'] / secs['new']:.2f}x); "
              f"verdicts old {dict(Counter(g.verdict for g in grades['old']))}, "
              f"new {dict(Counter(g.verdict for g in grades['new']))}; {len(moved)} moved")
        for label, o, n in moved:
            print(f"  {label}: {o.verdict} -> {n.verdict}; old {[f['check'] for f in o.failures()][:3]}, "
                  f"new {[f['check'] for f in n.failures()][:3]} {n.notes[:1]}")


if __name__ == "__main__":
    main()
