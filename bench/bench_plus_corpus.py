"""False fails and catch rate on the second independent corpus (tests/plus_corpus/humaneval: solutions
written from the docstrings alone, over problems tests/humaneval_corpus does not cover), at the defaults
(k=5, 200 trials) on the fork servers, one line per seed with each miss named. Its MBPP+ half
(tests/plus_corpus/mbpp) needs the MbppPlus release file imported first (`loop tasks import evalplus`).

    .venv/bin/python bench/bench_plus_corpus.py [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop import verdicts as V  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.executors.fork import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

CORPUS = ROOT / "tests" / "plus_corpus" / "humaneval"


def _number(path: Path) -> int:
    return int(re.match(r"p(\d+)", path.name)[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args()
    files = {kind: sorted((CORPUS / kind).glob("p*.py")) for kind in ("correct", "wrong")}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        humaneval.import_humaneval(tasks.tasks_root(root))
        jobs = [(kind, f, tasks.load(root, humaneval.task_name(f"HumanEval/{_number(f)}")))
                for kind in ("correct", "wrong") for f in files[kind]]
        print(f"corpus: {len(files['correct'])} correct, {len(files['wrong'])} wrong; k=5, 200 trials")
        for seed in args.seeds:
            started = time.perf_counter()
            grades = grade_batch([(task, f.read_text()) for _, f, task in jobs], SandboxConfig(), seed=seed, k=5,
                                 trials=200)
            false = [f.name for (kind, f, _), g in zip(jobs, grades) if kind == "correct" and g.verdict != V.STABLE_PASS]
            missed = [f.name for (kind, f, _), g in zip(jobs, grades) if kind == "wrong" and g.verdict != V.STABLE_FAIL]
            caught = len(files["wrong"]) - len(missed)
            print(f"seed {seed}: false fails {len(false)}/{len(files['correct'])} {false}; wrong caught "
                  f"{caught}/{len(files['wrong'])} ({caught / len(files['wrong']):.0%}); missed {missed}; "
                  f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
