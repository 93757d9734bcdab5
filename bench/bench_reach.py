"""What issue 31's grading power costs: the 164 HumanEval references graded at the defaults (k=5, 200
trials, sandbox on, fork servers; in-process, as figure 1 of bench_humaneval.py's in-process grade) with and
without the reach trials and the argument-state check, alternating, a fresh load of the tasks each run (so
every run generates its inputs and runs the reference on them, as a first `loop grade --samples` does).

    .venv/bin/python bench/bench_reach.py [--rounds 3] [--servers 2]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_mutants import unreached  # noqa: E402
from loop import tasks  # noqa: E402
from loop import verdicts as V  # noqa: E402
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.oracles import reach  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402


def run(root: Path, servers: int, reaching: bool) -> tuple[float, int]:
    """(seconds, stable_pass) of one defaults grade of every reference, tasks loaded afresh."""
    tilt_of = reach.tilt_of
    if not reaching:
        reach.tilt_of = lambda trial: None
    try:
        loaded = [tasks.load(root, name) for name in tasks.list_tasks(root)]
        if not reaching:
            for task in loaded:
                unreached(task)
        gc.collect()
        started = time.perf_counter()
        grades = grade_batch(((t, t.reference) for t in loaded), SandboxConfig(enabled=True), servers=servers,
                             k=5, trials=200)
        return time.perf_counter() - started, sum(g.verdict == V.STABLE_PASS for g in grades)
    finally:
        reach.tilt_of = tilt_of


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--servers", type=int, default=2)
    args = ap.parse_args()
    times: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        humaneval.import_humaneval(tasks.tasks_root(root))
        for r in range(args.rounds):
            for reaching in (False, True):
                seconds, passed = run(root, args.servers, reaching)
                times[reaching].append(seconds)
                print(f"round {r + 1}: {'with' if reaching else 'without'} reach trials and argument state: "
                      f"{seconds:.2f} s, {passed}/164 stable_pass", flush=True)
    off, on = statistics.median(times[False]), statistics.median(times[True])
    print(f"median without {off:.2f} s, with {on:.2f} s: {on / off:.3f}x the time ({(on / off - 1):+.1%})")


if __name__ == "__main__":
    main()
