"""One grade of each shipped repository task (gold patch) at k=1 and k=5 against the same test command run
bare (no sandbox, no patch step, no report parsing) in a prepared tree, side by side in one run; and the
one-time environment build, into an empty cache.

Bare is what a developer runs to try the same patch: the base tree with the hidden tests staged, the environment
beside it (PYTHONPATH, node_modules, a Go build cache; `-count=1` so Go never answers from its test cache), warmed
by one run of the command on the base tree; then the gold patch applied and the command run once ("bare": Go
compiles the patched package, as a grade must) and once more ("rerun": nothing left to compile). Each round starts
again from the warmed base tree and cache, at the same folder (Go keys compiled packages by folder). The goal
compares k=1 with bare; k=5 is compared with five bare runs in a row (bare, then four reruns), which is also what
a grade's repeats do (its later repeats reuse what its first compiled). Grades are timed as in a batch: the base
tree's runs (one per repeat) are shared by every candidate of a task, so they are warmed first; the first grade
of a task, which pays them, is printed apart.
Goal: k=1 <= 1.3x bare. Run: .venv/bin/python bench/bench_repo.py [--task NAME ...] [--rounds N]

`--against CHECKOUT` compares two versions of loop on a noisy machine: this checkout's loop and CHECKOUT's each
in a warm process of its own (environment built, first grade paid), and per round and task each side's bare run
then its k=1 grade, the sides in turn (order swapped every round). Printed per side: medians, minimums, the
median of each round's own k=1 / bare and min(k=1) / min(bare), the figure least moved by other load.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv else ROOT  # (a worker's)
sys.path.insert(0, str(CODE))

from loop import tasks  # noqa: E402
from loop.grading.model import Options  # noqa: E402
from loop.kinds.repo import env as repo_env
from loop.kinds.repo import kind as repo  # noqa: E402
from loop.kinds.repo import patch as repo_patch
from loop.sandbox import SandboxConfig, clean_env, make_scratch  # noqa: E402

ROUNDS = 3
TASKS = ("repo_ledger_py", "repo_strkit_js", "repo_semver_go")


def prepared_tree(task, env, where: Path) -> tuple[Path, list[str], dict]:
    """The base tree with hidden tests staged, the command and the variables a developer would use."""
    spec = task.spec
    tree = repo_patch.fresh_copy(spec.tree, where / "tree")
    repo._stage_hidden(spec, tree)
    argv = []
    for arg in spec.command:
        argv += [] if arg == "{tests}" else [arg.replace("{report}", str(where / "report.xml"))]
    # A fresh TMPDIR, as the sandbox's own /tmp is: go test makes its work folder there, and a /tmp holding
    # thousands of entries (as on a shared machine) slows that down for reasons that are not loop's.
    (where / "tmp").mkdir()
    variables = {**os.environ, **clean_env(0), "TMPDIR": str(where / "tmp")}
    if env is not None and spec.environment.kind == "requirements":
        variables["PYTHONPATH"] = str(env.path)
    if env is not None and spec.environment.kind == "npm":
        (tree / "node_modules").symlink_to(env.path / "node_modules")
    if env is not None and spec.environment.kind == "go":
        shutil.copytree(env.gocache, where / "gocache")
        variables.update({**repo_env.GO_VARS, "GOCACHE": str(where / "gocache"), "GOPATH": str(where / "gopath"),
                          "GOMODCACHE": str(env.path / "mod"), "GOFLAGS": "-mod=mod -count=1"})
    return tree, argv, variables


def restore(where: Path, task) -> None:
    """Back to the warmed base tree and cache (untimed), then the gold patch applied, as a developer would."""
    for name in ("tree", "gocache"):
        if (where / f"{name}0").exists():
            shutil.rmtree(where / name)
            shutil.copytree(where / f"{name}0", where / name, symlinks=True)
    assert repo_patch.apply(task.reference, where / "tree", repo_patch.TRUSTED) is None


def bare(tree: Path, argv: list[str], variables: dict) -> float:
    start = time.perf_counter()
    # A session of its own, as the sandbox has (bwrap --new-session): with the kernel's autogroup
    # scheduling, a busy machine shares the CPU out by session, so anything else would tilt the comparison.
    subprocess.run(argv, cwd=tree, env=variables, capture_output=True, timeout=300, start_new_session=True)
    return time.perf_counter() - start


def graded(task, k: int) -> float:
    start = time.perf_counter()
    g = repo.KIND.grade(task, task.reference, SandboxConfig(), Options(k=k, trials=0))
    assert g.verdict == "stable_pass", g.failures()
    return time.perf_counter() - start


def worker() -> None:
    """--worker: one checkout's side of --against. Reads `bare NAME` / `grade NAME` lines, answers seconds."""
    ready = {}
    for line in sys.stdin:
        what, name = line.split()
        if name not in ready:
            task = tasks.load(CODE, name)
            env = repo._environment(task.spec, SandboxConfig())
            graded(task, 5)  # the base tree's runs, the probes and the seals, once per task
            where = Path(tempfile.mkdtemp(prefix="loop-bench-bare-"))
            tree, argv, variables = prepared_tree(task, env, where)
            bare(tree, argv, variables)
            for folder in ("tree", "gocache"):
                if (where / folder).exists():
                    shutil.copytree(where / folder, where / f"{folder}0", symlinks=True)
            graded(task, 1)
            ready[name] = (task, where, tree, argv, variables)
        task, where, tree, argv, variables = ready[name]
        if what == "bare":
            restore(where, task)
        print(bare(tree, argv, variables) if what == "bare" else graded(task, 1), flush=True)
    for _task, where, *_ in ready.values():
        shutil.rmtree(where, ignore_errors=True)


def against(other: Path, names: list[str], rounds: int, cache: Path) -> None:
    """Both checkouts side by side, alternating per round (see the module's docstring)."""
    sides = {str(ROOT): None, str(other.resolve()): None}
    for i, code in enumerate(sides):
        env = {**os.environ, "PYTHONPATH": code, "LOOP_ENV_CACHE": str(cache / f"envs{i}")}
        sides[code] = subprocess.Popen([sys.executable, __file__, "--worker", "--code", code], env=env, text=True,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(code: str, what: str, name: str) -> float:
        sides[code].stdin.write(f"{what} {name}\n")
        sides[code].stdin.flush()
        return float(sides[code].stdout.readline())

    try:
        for name in names:
            times = {code: {"bare": [], 1: []} for code in sides}
            for code in sides:
                ask(code, "bare", name)  # set up, untimed
            for r in range(rounds):
                for code in list(sides)[:: 1 if r % 2 == 0 else -1]:
                    times[code]["bare"].append(ask(code, "bare", name))
                    times[code][1].append(ask(code, "grade", name))
            for code, t in times.items():
                b, k1 = t["bare"], t[1]
                print(f"{name} {code}: bare {statistics.median(b):.3f}s (min {min(b):.3f}), k=1 "
                      f"{statistics.median(k1):.3f}s (min {min(k1):.3f}); k=1 / bare: median of rounds "
                      f"{statistics.median(k / x for k, x in zip(k1, b)):.2f}x, min / min {min(k1) / min(b):.2f}x "
                      f"({rounds} rounds)", flush=True)
    finally:
        for proc in sides.values():
            proc.stdin.close()
            proc.wait()


def steps(task, env, rounds: int) -> None:
    """--steps: where a k=1 grade's time goes, each part timed alone in this process, interleaved per round:
    the bare run; the same command on a tree without bytecode (a sandboxed run compiles the tree and pytest
    rewrites its test files every run: they change every run); the gold tree's run in the sandbox with nothing
    of loop's, then with its tripwires and sealed checks (the run alone, and the whole run_tests call with their
    planning); the patch step (copy and sandboxed git apply); the grade."""
    from loop.kinds.repo import reference, testrun

    cfg = SandboxConfig()
    gold = reference._gold_tree(task, cfg)
    allowed, seals = reference.tripwire_points(task, cfg, env), reference._seals(task, cfg, env)
    wires = testrun.fresh_tripwires(allowed) if isinstance(allowed, dict) else None
    ids = reference._run_ids(task.spec)
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="loop-bench-steps-") as tmp:
        where = Path(tmp)
        (where / "bare").mkdir()
        tree, argv, variables = prepared_tree(task, env, where / "bare")
        bare(tree, argv, variables)  # warm, as in main()
        for folder in ("tree", "gocache"):
            if (where / "bare" / folder).exists():
                shutil.copytree(where / "bare" / folder, where / "bare" / f"{folder}0", symlinks=True)

        def timed(name: str, fn) -> None:
            start = time.perf_counter()
            value = fn()
            times.setdefault(name, []).append(time.perf_counter() - start)
            if name.startswith("sandboxed"):
                times.setdefault(name + ": its process", []).append(value.duration)

        def cold() -> float:
            copy = repo_patch.fresh_copy(tree, where / "cold")  # (no __pycache__)
            try:
                return bare(copy, argv, {**variables, "PYTHONDONTWRITEBYTECODE": "1"})
            finally:
                shutil.rmtree(copy)

        def patch_step() -> None:
            folder = make_scratch("loop-bench-patch-")  # where the sandbox's uid can reach, as a grade's
            assert repo_patch.apply(task.reference, repo_patch.fresh_copy(task.spec.tree, folder / "repo"), cfg) is None
            shutil.rmtree(folder)

        for _ in range(rounds):
            restore(where / "bare", task)
            timed("bare", lambda: bare(tree, argv, variables))  # (Go: compiles the patch, as a grade does)
            if task.spec.environment is None or task.spec.environment.kind != "go":
                times.setdefault("bare, no bytecode", []).append(cold())
            timed("sandboxed run, nothing of loop's", lambda: testrun.run_tests(task, cfg, env, gold, 0, ids))
            timed("sandboxed run, tripwires and seals",
                  lambda: testrun.run_tests(task, cfg, env, gold, 0, ids, wires, seals or None))
            timed("patch step (copy, git apply)", patch_step)
            timed("grade k=1", lambda: graded(task, 1))
    base = statistics.median(times["bare"])
    for name, values in times.items():
        print(f"  {name:52} median {statistics.median(values) * 1000:6.0f} ms ({statistics.median(values) / base:.2f}x "
              f"bare), min {min(values) * 1000:6.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", choices=TASKS, help="only this task (repeatable)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--against", type=Path, metavar="CHECKOUT", help="alternate with another checkout's loop")
    parser.add_argument("--steps", action="store_true", help="where a k=1 grade's time goes, step by step")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker()
    cache = Path(tempfile.mkdtemp(prefix="loop-bench-envs-"))
    os.chmod(cache, 0o755)
    os.environ["LOOP_ENV_CACHE"] = str(cache / "envs")  # an empty cache: the build below is the one-time cost
    try:
        if args.against:
            return against(args.against, [n for n in args.task or TASKS if not repo.missing_tool(
                tasks.load(ROOT, n).spec)], args.rounds, cache)
        for name in args.task or TASKS:
            task = tasks.load(ROOT, name)
            if repo.missing_tool(task.spec):
                print(f"{name}: skipped, {repo.missing_tool(task.spec)} is not installed")
                continue
            start = time.perf_counter()
            env = repo._environment(task.spec, SandboxConfig())
            build = time.perf_counter() - start
            first = graded(task, 5)  # pays the base tree's five runs, once per task in a batch
            if args.steps:
                print(f"{name}:")
                steps(task, env, args.rounds)
                continue
            with tempfile.TemporaryDirectory(prefix="loop-bench-bare-") as tmp:
                where = Path(tmp)
                tree, argv, variables = prepared_tree(task, env, where)
                bare(tree, argv, variables)  # warm the page cache and the build cache on the base tree
                for folder in ("tree", "gocache"):
                    if (where / folder).exists():
                        shutil.copytree(where / folder, where / f"{folder}0", symlinks=True)
                times = {"bare": [], "rerun": [], 1: [], 5: []}
                for _ in range(args.rounds):  # interleaved, so machine noise hits every side alike
                    restore(where, task)
                    times["bare"].append(bare(tree, argv, variables))
                    times["rerun"].append(bare(tree, argv, variables))
                    times[1].append(graded(task, 1))
                    times[5].append(graded(task, 5))
            b, r, k1, k5 = (statistics.median(times[key]) for key in ("bare", "rerun", 1, 5))
            print(f"{name}: bare {b:.2f}s (rerun {r:.2f}s), grade k=1 {k1:.2f}s ({k1 / b:.2f}x bare, "
                  f"{k1 / r:.2f}x rerun), k=5 {k5:.2f}s ({k5 / (b + 4 * r):.2f}x five bare runs, {k5 / k1:.2f}x "
                  f"k=1); first grade of the task (k=5, base runs included) {first:.2f}s; one-time "
                  f"{task.spec.environment.kind} environment build {build:.2f}s (median of {args.rounds}, sandbox on)")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
