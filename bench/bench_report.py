"""Time and size of `loop report` for a 2,000-candidate batch: the text table against the HTML page, side by
side in one run (the page adds charts, the candidates x tests grid, and diffs of the failing candidates,
at most 25 per task, so it must stay a page a browser opens). Then the summary `loop grade` and `loop run`
print after a batch, in a runs.db of 400 batches of 164 candidates: it must not grow with the batches before
it (the round_rates view aggregates every batch before it filters; the summary reads it only for a batch
that sent follow-ups).

Run: .venv/bin/python bench/bench_report.py
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop import tasks
from loop.report import html as report_html
from loop.report import rounds
from loop.report import tables as report  # noqa: E402
from loop.store.db import RunStore  # noqa: E402

CANDIDATES, ROUNDS, BATCHES = 2000, 3, 400
TESTS = [("test:touching_pair", "f2p"), ("test:unsorted_touching_chain", "f2p"), ("test:point_on_negative_endpoint", "f2p"),
         ("test:existing_overlap", "p2p"), ("test:separated_ranges_stay_ascending", "p2p"), ("test:empty_input", "p2p")]


def build(db: Path) -> None:
    """One batch of merge_intervals_py candidates: 60% pass, 40% fail one test, each with its own source."""
    baseline = tasks.load(ROOT, "merge_intervals_py").baseline
    with RunStore(db) as store:
        batch = store.start_batch("run", seed=1, model="bench", config='{"prices": {"prompt": 2, "completion": 10}}')
        rows, checks = [], []
        for i in range(CANDIDATES):
            passed = i % 5 < 3
            rows.append({"id": i + 1, "batch_id": batch, "task": "merge_intervals_py", "sample": i,
                         "source": baseline.replace("merged = []", f"merged = []  # variant {i}"),
                         "status": "graded", "verdict": "stable_pass" if passed else "stable_fail",
                         "reason": None if passed else "test:unsorted_touching_chain", "model": "bench"})
            for name, kind in TESTS:
                ok = passed or name != "test:unsorted_touching_chain"
                base = "fail" if kind == "f2p" else "pass"
                checks.append({"candidate_id": i + 1, "check": name, "kind": "test", "passed": int(ok),
                               "test_kind": kind, "baseline": base, "candidate": "pass" if ok else "fail",
                               "transition": ("repaired" if base == "fail" else "preserved") if ok else "still_broken",
                               "input": "[[5, 7], [1, 3], [3, 5]]", "expected": "[[1, 7]]",
                               "actual": "[[1, 7]]" if ok else "[[1, 3], [3, 5], [5, 7]]"})
        store.db["candidates"].insert_all(rows)
        store.db["checks"].insert_all(checks, batch_size=500)
        store.db["requests"].insert_all({"batch_id": batch, "candidate_id": i + 1, "task": "merge_intervals_py",
                                         "sample": i, "attempt": 1, "status_code": 200, "prompt_tokens": 900,
                                         "completion_tokens": 300} for i in range(CANDIDATES))


def timed(fn) -> tuple[float, int]:
    start = time.perf_counter()
    text = fn()
    return time.perf_counter() - start, len(text.encode())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"
        build(db)
        table, page = [], []
        for _ in range(ROUNDS):  # interleaved, so machine noise hits both sides alike
            table.append(timed(lambda: report.render_report(db, "table")))
            page.append(timed(lambda: report_html.render(db, root=ROOT)))
    t, p = statistics.median(x for x, _ in table), statistics.median(x for x, _ in page)
    print(f"{CANDIDATES} candidates: table {t:.2f} s ({table[0][1] / 1024:.0f} KiB), "
          f"html page {p:.2f} s ({page[0][1] / 1024:.0f} KiB): ratio {p / t:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runs.db"
        with RunStore(db) as store:
            for b in range(BATCHES):
                batch = store.start_batch("grade", seed=b, model="bench")
                store.db["candidates"].insert_all(
                    {"batch_id": batch, "task": f"t{i:03d}", "sample": 0, "source": "x", "status": "graded",
                     "verdict": "stable_pass" if i % 3 else "stable_fail", "round": 1} for i in range(164))
        summary, view = [], []
        for _ in range(ROUNDS):
            summary.append(timed(lambda: str(report.batch_summary(db, batch, 164, {}))))
            view.append(timed(lambda: str(rounds.round_rates(db, batch=batch))))
    s, v = statistics.median(x for x, _ in summary), statistics.median(x for x, _ in view)
    print(f"{BATCHES} batches of 164: a batch's summary {s:.3f} s; round_rates of that batch alone {v:.3f} s "
          f"(what the summary read before): ratio {v / s:.1f}")


if __name__ == "__main__":
    main()
