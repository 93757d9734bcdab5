"""Wall time of one grade at k=1 and k=5, for a C++ and a Python task, side by side in one run.

C++ builds once per candidate and runs k times, so k=5 should cost at most 1.5x k=1 there.
Run: .venv/bin/python bench/bench_triage.py
"""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop.grading import programs  # noqa: E402
from loop.grading.grade import Options, grade  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

ROUNDS = 3


def one(task, source: str, k: int) -> float:
    # Every grade pays its own candidate builds, as a fresh candidate would; the baseline and
    # reference builds stay cached, as they do across a batch.
    for key in [key for key, prog in programs._CPP_CACHE.items() if prog.role.startswith("candidate")]:
        del programs._CPP_CACHE[key]
    start = time.perf_counter()
    g = grade(task, source, SandboxConfig(), Options(k=k, trials=200))
    assert g.verdict == "stable_pass", g.failures()
    return time.perf_counter() - start


def main() -> None:
    for name in ("merge_intervals_cpp", "merge_intervals_py"):
        task = tasks.load(ROOT, name)
        times = {1: [], 5: []}
        one(task, task.reference, 1)  # warm the baseline and reference builds
        for _ in range(ROUNDS):  # interleaved, so machine noise hits both sides alike
            for k in (1, 5):
                times[k].append(one(task, task.reference, k))
        k1, k5 = statistics.median(times[1]), statistics.median(times[5])
        print(f"{name}: k=1 {k1:.2f}s, k=5 {k5:.2f}s, ratio {k5 / k1:.2f} (median of {ROUNDS}, 200 trials, sandbox on)")


if __name__ == "__main__":
    main()
