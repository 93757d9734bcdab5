"""One grade of each shipped repository task (gold patch) at k=1 and k=5 against the same test command run
bare (no sandbox, no patch step, no report parsing) in a prepared tree, side by side in one run; and the
one-time environment build, into an empty cache.

Bare is what a developer runs: the tree already patched with the hidden tests staged (and, for Go, already
compiled into the warm cache once, so bare compiles nothing while a grade compiles the patched package), the
environment beside it (PYTHONPATH, node_modules, a warm Go build cache; `-count=1` so Go never answers from its test
cache). Grades are timed as in a batch: the base tree's runs (one per repeat) are shared by every candidate
of a task, so they are warmed first; the first grade of a task, which pays them, is printed apart.
Goal: k=1 <= 1.3x bare. Run: .venv/bin/python bench/bench_repo.py [--task NAME ...] [--rounds N]
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
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop.grading.grade import Options  # noqa: E402
from loop.kinds import repo, repo_env, repo_patch  # noqa: E402
from loop.sandbox import SandboxConfig, clean_env  # noqa: E402

ROUNDS = 3
TASKS = ("repo_ledger_py", "repo_strkit_js", "repo_semver_go")


def prepared_tree(task, env, where: Path) -> tuple[Path, list[str], dict]:
    """The gold-patched tree with hidden tests staged, the command and the variables a developer would use."""
    spec = task.spec
    tree = repo_patch.fresh_copy(spec.tree, where / "tree")
    assert repo_patch.apply(task.reference, tree) is None
    repo._stage_hidden(spec, tree)
    argv = []
    for arg in spec.command:
        argv += [] if arg == "{tests}" else [arg.replace("{report}", str(where / "report.xml"))]
    variables = {**os.environ, **clean_env(0)}
    if env is not None and spec.environment.kind == "requirements":
        variables["PYTHONPATH"] = str(env.path)
    if env is not None and spec.environment.kind == "npm":
        (tree / "node_modules").symlink_to(env.path / "node_modules")
    if env is not None and spec.environment.kind == "go":
        cache = where / "gocache"
        shutil.copytree(env.gocache, cache)
        variables.update({**repo_env.GO_VARS, "GOCACHE": str(cache), "GOPATH": str(where / "gopath"),
                          "GOMODCACHE": str(env.path / "mod"), "GOFLAGS": "-mod=mod -count=1"})
    return tree, argv, variables


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", choices=TASKS, help="only this task (repeatable)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="loop-bench-envs-"))
    os.chmod(cache, 0o755)
    os.environ["LOOP_ENV_CACHE"] = str(cache / "envs")  # an empty cache: the build below is the one-time cost
    try:
        for name in args.task or TASKS:
            task = tasks.load(ROOT, name)
            if repo.missing_tool(task.spec):
                print(f"{name}: skipped, {repo.missing_tool(task.spec)} is not installed")
                continue
            start = time.perf_counter()
            env = repo._environment(task.spec, SandboxConfig())
            build = time.perf_counter() - start
            first = graded(task, 5)  # pays the base tree's five runs, once per task in a batch
            with tempfile.TemporaryDirectory(prefix="loop-bench-bare-") as where:
                tree, argv, variables = prepared_tree(task, env, Path(where))
                bare(tree, argv, variables)  # warm the page cache and Go's build cache, as a developer's are
                times = {"bare": [], 1: [], 5: []}
                for _ in range(args.rounds):  # interleaved, so machine noise hits every side alike
                    times["bare"].append(bare(tree, argv, variables))
                    times[1].append(graded(task, 1))
                    times[5].append(graded(task, 5))
            b, k1, k5 = (statistics.median(times[key]) for key in ("bare", 1, 5))
            print(f"{name}: bare {b:.2f}s, grade k=1 {k1:.2f}s ({k1 / b:.2f}x bare), k=5 {k5:.2f}s "
                  f"({k5 / b:.2f}x bare, {k5 / k1:.2f}x k=1); first grade of the task (k=5, base runs included) "
                  f"{first:.2f}s; one-time {task.spec.environment.kind} environment build {build:.2f}s "
                  f"(median of {args.rounds}, sandbox on)")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
