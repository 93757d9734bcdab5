"""Every verdict, failing check and attempt status of one loop checkout, written as JSON to compare with
another's: bench_designs.py's candidates (the first corpus's 146 files and --per-task mutants of each HumanEval
reference), k=5, 200 trials, through the fork servers, under each seed. A change meant to keep every verdict
(issue 45's repeats after a failed repeat 0) is shown by running this on both checkouts and --compare.

    .venv/bin/python bench/bench_same_verdicts.py CHECKOUT OUT.json [--seeds 1 2 3] [--per-task 2]
    .venv/bin/python bench/bench_same_verdicts.py --compare A.json B.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path


def dump(root: Path, out: Path, seeds: list[int], per_task: int) -> None:
    sys.path[:0] = [str(root), str(root / "bench")]  # that checkout's loop and benches, not this one's
    from bench_corpus import CORPUS, load
    from bench_mutants import mutants

    import loop
    from loop.datasets.humaneval import tasks as humaneval
    from loop.kinds.function.fork import grade_batch
    from loop.sandbox import SandboxConfig

    assert Path(loop.__file__).resolve().is_relative_to(root.resolve()), loop.__file__
    by_name = load(contracts=True)
    items = [(f"corpus/{kind}/{path.name}", by_name[humaneval.task_name(f"HumanEval/{int(path.name[1:4])}")],
              path.read_text()) for kind in ("correct", "wrong") for path in sorted((CORPUS / kind).glob("p*.py"))]
    for task in by_name.values():
        items += [(f"mutant/{task.name}/{i}:{op}", task, src) for i, (op, src) in enumerate(mutants(task, per_task))]
    graded = {}
    for seed in seeds:
        grades = grade_batch([(t, s) for _, t, s in items], SandboxConfig(), seed=seed, servers=2, k=5, trials=200)
        for (label, _, _), g in zip(items, grades):
            graded[f"{seed} {label}"] = [g.verdict, sorted(f["check"] for f in g.failures()),
                                         [a.status for a in g.attempts]]
    out.write_text(json.dumps(graded, indent=0, sort_keys=True))
    print(f"{len(graded)} grades: {dict(Counter(v[0] for v in graded.values()))}")


def compare(a: Path, b: Path) -> None:
    one, two = json.loads(a.read_text()), json.loads(b.read_text())
    if one.keys() != two.keys():
        sys.exit(f"not the same candidates: {len(one.keys() ^ two.keys())} differ")
    for i, what in enumerate(("verdicts", "failing checks", "attempt statuses")):
        moved = [k for k in one if one[k][i] != two[k][i]]
        print(f"{what}: {len(moved)} of {len(one)} differ" + "".join(f"\n  {k}: {one[k][i]} / {two[k][i]}"
                                                                    for k in moved[:20]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", type=Path, nargs=2)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--per-task", type=int, default=2)
    args = ap.parse_args()
    if args.compare:
        compare(*args.paths)
    else:
        dump(args.paths[0], args.paths[1], args.seeds, args.per_task)


if __name__ == "__main__":
    main()
