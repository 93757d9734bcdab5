"""SWE-bench format end to end, in one run: import one instance and grade a predictions file holding its gold
patch, against running the instance's test command bare (no sandbox, no patch, no loop) in the same tree.

The instance is made here from the shipped repo_ledger_py task: its tree committed to a fresh git clone
(acme/ledger), its hidden test as `test_patch`, its gold patch as `patch`, the 50 base tests as
PASS_TO_PASS. `loop grade --predictions` runs the test command on the base tree and the prediction once per
repeat (the first grade of the task also checks its polarity, remembered across runs, and every process plans
its tripwires from probe runs); the figures printed are the whole command's wall time at k=1 and k=5 over one
bare run, the environment build apart.

    .venv/bin/python bench/bench_swebench.py [--repeat 3] [--cached-env]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASK = ROOT / "harness" / "tasks" / "repo_ledger_py"
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.org", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=GIT_ENV, check=True, capture_output=True,
                          text=True).stdout


def make_instance(work: Path) -> dict:
    clone = work / "repos" / "acme__ledger"
    shutil.copytree(TASK / "repo", clone, ignore=shutil.ignore_patterns("__pycache__"))
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "base")
    base = git(clone, "rev-parse", "HEAD").strip()
    for hidden in (TASK / "hidden").rglob("*.py"):
        dest = clone / hidden.relative_to(TASK / "hidden")
        shutil.copyfile(hidden, dest)
    git(clone, "add", "-A")
    test_patch = git(clone, "diff", "--cached", base)
    git(clone, "reset", "-q", "--hard", base)
    meta = tomllib.loads((TASK / "task.toml").read_text())
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                                "tests"], cwd=clone, capture_output=True, text=True,
                               env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}).stdout
    p2p = sorted(line for line in collected.splitlines() if "::" in line)
    return {"instance_id": "acme__ledger-1", "repo": "acme/ledger", "base_commit": base,
            "patch": (TASK / "gold.patch").read_text(), "test_patch": test_patch,
            "FAIL_TO_PASS": meta["fail_to_pass"], "PASS_TO_PASS": json.dumps(p2p),
            "environment_setup_commit": base, "problem_statement": meta["bug_report"]}


def timed(argv: list[str], **kw) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed ({done.returncode}): {done.stderr[-600:]}")
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cached-env", action="store_true", help="use the machine's environment cache as it is")
    args = ap.parse_args()
    loop = [sys.executable, "-m", "loop"]
    with tempfile.TemporaryDirectory(prefix="bench-swe-") as tmp:
        work = Path(tmp)
        if not args.cached_env:  # an empty environment cache, so the one-time build is measured (loop inherits it)
            os.environ["LOOP_ENV_CACHE"] = str(work / "envs")
        instance = make_instance(work)
        (work / "instances.jsonl").write_text(json.dumps(instance) + "\n")
        (work / "preds.jsonl").write_text(json.dumps({"instance_id": instance["instance_id"],
                                                      "model_name_or_path": "gold", "model_patch": instance["patch"]}) + "\n")
        proj = work / "proj"
        (proj / "harness" / "tasks").mkdir(parents=True)
        cfg = proj / "config.toml"
        cfg.write_text(f'[loop]\ndb = "{work / "runs.db"}"\nk = 1\ntrials = 0\nconcurrency = 1\n')
        imports = [timed([*loop, "--config", str(cfg), "tasks", "import", "swebench", str(work / "instances.jsonl"),
                          "--repos", str(work / "repos"), "--force"], cwd=ROOT) for _ in range(args.repeat)]
        folder = proj / "harness" / "tasks" / instance["instance_id"]
        meta = tomllib.loads((folder / "task.toml").read_text())
        # the environment is built once per content hash; build it (or find it) before timing anything
        sys.path.insert(0, str(ROOT))
        from loop import tasks
        from loop.kinds.repo import env as repo_env
        from loop.sandbox import SandboxConfig

        build_start = time.perf_counter()
        env = repo_env.ensure(tasks.load_folder(folder).spec.environment, SandboxConfig().interpreter())
        build = time.perf_counter() - build_start
        grades = {k: [timed([*loop, "--config", str(cfg), "grade", "--predictions", str(work / "preds.jsonl"), "--json",
                             "--k", str(k)], cwd=ROOT) for _ in range(args.repeat)] for k in (1, 5)}
        # bare: the same command in the imported tree with test_patch applied, no sandbox, no patch, no loop
        tree = work / "bare"
        shutil.copytree(folder / "repo", tree)
        shutil.copytree(folder / "hidden", tree, dirs_exist_ok=True)
        ids = meta["fail_to_pass"] + meta["pass_to_pass"]
        argv = [x for a in meta["test_command"]
                for x in (ids if a == "{tests}" else [a.replace("{report}", str(work / "bare.xml"))])]
        argv[0] = shutil.which(argv[0], path="/usr/bin:/bin")
        bare_env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(env.path), "PYTHONDONTWRITEBYTECODE": "1"}
        bares = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=tree, env=bare_env, capture_output=True)  # f2p fail at base: exit 1
            bares.append(time.perf_counter() - start)
            if done.returncode != 1:
                raise SystemExit(f"bare test command: exit {done.returncode}: {done.stdout[-400:]!r}")
    imp, bare = statistics.median(imports), statistics.median(bares)
    tests = len(instance["FAIL_TO_PASS"]) + len(json.loads(instance["PASS_TO_PASS"]))
    print(f"one SWE-bench instance ({tests} named tests), median of {args.repeat}:")
    print(f"  loop tasks import swebench          {imp:6.2f} s")
    print(f"  environment build (once per hash)   {build:6.2f} s{'  (--cached-env)' if args.cached_env else ''}")
    print(f"  bare test command                   {bare:6.2f} s")
    for k, times in grades.items():
        # the first grade of a task checks its polarity (base and gold runs, remembered across runs); every
        # grade runs the base tree and the patch once per repeat, and the tripwire probes once per process
        first, rest = times[0], statistics.median(times[1:] or times)
        print(f"  loop grade --predictions --k {k}      {rest:6.2f} s  ({rest / bare:.2f}x bare; the first, with the "
              f"polarity check: {first:.2f} s)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
