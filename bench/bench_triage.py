"""Wall time of one grade at k=1 and k=5, for a C++ and a Python task, side by side in one run; for C++
also one plain `g++` compile-and-link of the candidate with its driver, the yardstick of the C++ figure.

C++ goal (issue 16): a k=5 grade with the sanitizer gate in <= 2x that plain compile. Every C++ grade pays
its own candidate builds (plain and sanitizer), as a fresh candidate would; the baseline, reference and
driver builds stay cached, as they do across a batch. The plain compile runs unsandboxed, as a user types it.
Run: .venv/bin/python bench/bench_triage.py
"""

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop.grading.model import Options  # noqa: E402
from loop.kinds import grade
from loop.kinds.function import programs  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

ROUNDS = 3


def one(task, source: str, k: int) -> float:
    for key in [key for key, prog in programs._CPP_CACHE.items() if prog.role.startswith("candidate")]:
        del programs._CPP_CACHE[key]
    start = time.perf_counter()
    g = grade(task, source, SandboxConfig(), Options(k=k, trials=200))
    assert g.verdict == "stable_pass", g.failures()
    return time.perf_counter() - start


def plain_compile(task, folder: Path) -> float:
    """`g++ FLAGS candidate.cpp driver.cpp -o prog`: the candidate with the task's driver, nothing cached."""
    (folder / task.candidate_file).write_text(task.reference)
    (folder / task.contract_file).write_text(task.contract)
    if (task.path / "driver.cpp").is_file():  # a task from before [signature] had a hand-written driver
        shutil.copy(task.path / "driver.cpp", folder / "driver.cpp")
    else:
        from loop.kinds.function.cppwire import WIRE_HEADER

        shutil.copy(WIRE_HEADER, folder / WIRE_HEADER.name)
        (folder / "driver.cpp").write_text(task.signature.driver_source(task.contract_file))
    cxx = shutil.which("g++") or "/usr/bin/g++"
    start = time.perf_counter()
    subprocess.run([cxx, *task.build_flags, "-I", str(folder), str(folder / task.candidate_file),
                    str(folder / "driver.cpp"), "-o", str(folder / "prog")], check=True)
    return time.perf_counter() - start


def main() -> None:
    for name in ("merge_intervals_cpp", "merge_intervals_py"):
        task = tasks.load(ROOT, name)
        cpp = task.language == "cpp"
        times = {1: [], 5: [], "gxx": []}
        one(task, task.reference, 1)  # warm the baseline, reference and driver builds
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(ROUNDS):  # interleaved, so machine noise hits every side alike
                if cpp:
                    times["gxx"].append(plain_compile(task, Path(tmp)))
                for k in (1, 5):
                    times[k].append(one(task, task.reference, k))
        k1, k5 = statistics.median(times[1]), statistics.median(times[5])
        print(f"{name}: k=1 {k1:.2f}s, k=5 {k5:.2f}s, ratio {k5 / k1:.2f} (median of {ROUNDS}, 200 trials, sandbox on)")
        if cpp:
            gxx = statistics.median(times["gxx"])
            print(f"{name}: k=5 grade with the sanitizer gate {k5:.2f}s vs one plain g++ compile-and-link of the "
                  f"candidate with its driver {gxx:.2f}s: ratio {k5 / gxx:.2f} (goal <= 2)")


if __name__ == "__main__":
    main()
