"""loop and evalplus.evaluate side by side on one samples file of an EvalPlus dataset: both import times
(loop's `tasks import evalplus`, cold and remembered), both grade times (start-up included), and both pass@1
pairs (base, base + extra): loop's own verdict, loop's EvalPlus numbers, and evalplus.evaluate's.

Without --samples, the samples file is made from the release file itself: for each of the first --tasks
problems loop imported with EvalPlus numbers, its canonical solution and one mutant of it (the first `<` made `<=`, else the first `+` made `-`,
else a solution returning None): right and wrong answers both.

    .venv/bin/python bench/bench_evalplus.py RELEASE.jsonl[.gz] [--samples FILE] [--tasks N] [--k K]
        [--corpus [--hang N]] [--against OTHER_CHECKOUT ...] [--rounds R]

With --corpus, the samples are the second corpus's files for the dataset (tests/plus_corpus/humaneval or
/mbpp: right and wrong answers written from the problem statements, slow ones among them) whose problem the
release has, and a hanging answer (`while True: pass`) to each of its first --hang problems: what a user's
samples file holds, wrong, slow and hanging candidates as well as right ones.

Each grade starts with loop's remembered tables and polarity checks forgotten (a first run of its seed);
`--against` grades with other checkouts of loop (their PYTHONPATH) on the same import, in turn with this one
and evalplus, `--rounds` times: on a shared machine only ratios within one run compare.

The evalplus package must be installed (the `evalplus` extra of `make venv`); it reads RELEASE through
MBPP_OVERRIDE_PATH / HUMANEVAL_OVERRIDE_PATH and is run with i_just_wanna_run (no stored results reused).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop.datasets.evalplus import read_release, task_name  # noqa: E402

LOOP = [sys.executable, "-m", "loop"]
CGROUP = Path("/sys/fs/cgroup/cpuacct")
CPU: list = []  # each timed command's CPU seconds
# evalplus.evaluate's own venv (`make venv`: kept apart, it pulls in pandas); LOOP_EVALPLUS_PYTHON names another
EVALPLUS = os.environ.get("LOOP_EVALPLUS_PYTHON") or str(Path(__file__).resolve().parent.parent / ".venv-evalplus" / "bin" / "python")


def mutant(problem) -> str:
    source = problem.prompt + problem.canonical_solution if problem.dataset == "humaneval" \
        else problem.prompt + "\n" + problem.canonical_solution
    body = problem.canonical_solution
    for old, new in ((" < ", " <= "), (" + ", " - "), (" == ", " != ")):
        if old in body:
            return source.replace(body, body.replace(old, new, 1))
    return source.replace(body, f"\ndef {problem.entry_point}(*args):\n    return None\n")


def samples_from(problems, n: int, path: Path, tasks_dir: Path) -> Path:
    """Right and wrong samples of the first n problems that loop imported with EvalPlus numbers."""
    rows = []
    kept = [p for p in problems if (tasks_dir / task_name(p.task_id) / "evalplus.json").is_file()]
    for p in kept[:n]:
        right = p.prompt + p.canonical_solution if p.dataset == "humaneval" else p.prompt + "\n" + p.canonical_solution
        rows += [{"task_id": p.task_id, "solution": right}, {"task_id": p.task_id, "solution": mutant(p)}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def samples_of_corpus(problems, hang: int, path: Path) -> Path:
    """The second corpus's files for this dataset whose problem the release has, then a hanging answer to each of
    the first `hang` of those problems."""
    dataset = problems[0].dataset
    by_number = {int(re.search(r"(\d+)$", p.task_id)[1]): p for p in problems}
    rows, seen = [], []
    for kind in ("correct", "wrong"):
        for file in sorted((ROOT / "tests" / "plus_corpus" / dataset / kind).glob("[pm]*.py")):
            problem = by_number.get(int(re.match(r"[pm](\d+)", file.name)[1]))
            if problem is not None:
                rows.append({"task_id": problem.task_id, "solution": file.read_text()})
                seen += [problem] if problem not in seen else []
    for problem in seen[:hang]:
        rows.append({"task_id": problem.task_id,
                     "solution": f"def {problem.entry_point}(*args):\n    while True:\n        pass\n"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def timed(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, str]:
    """(wall seconds, stdout); the whole process tree's CPU seconds go to CPU[-1] (a cgroup v1 `cpuacct`
    group, as bench_profile.py measures: loop does not wait on its sandboxes; None where none can be made)."""
    group = CGROUP / f"bench-evalplus-{os.getpid()}"
    try:
        group.mkdir()
    except OSError:
        group = None
    start = time.monotonic()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                          preexec_fn=(lambda: (group / "cgroup.procs").write_text(str(os.getpid()))) if group else None)
    took = time.monotonic() - start
    CPU.append(int((group / "cpuacct.usage").read_text()) / 1e9 if group else None)
    if group:
        for pid in (group / "cgroup.procs").read_text().split():  # what outlived it (sandboxes being torn down)
            try:
                (CGROUP / "cgroup.procs").write_text(pid)
            except OSError:
                pass  # gone meanwhile
        try:
            group.rmdir()
        except OSError:
            pass  # a process still leaving it: the group is left behind, empty soon
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} failed ({done.returncode}): {done.stderr[-800:]}")
    return took, done.stdout


def cpu() -> str:
    return f", {CPU[-1]:.1f} CPU-s" if CPU[-1] is not None else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release", type=Path)
    ap.add_argument("--samples", type=Path)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--corpus", action="store_true", help="samples: the second corpus's files and hanging answers")
    ap.add_argument("--hang", type=int, default=3, help="with --corpus: problems given a hanging answer")
    ap.add_argument("--k", type=int, default=None, help="loop's repeats (default: loop's default)")
    ap.add_argument("--against", type=Path, action="append", default=[],
                    help="another loop checkout whose `loop grade --samples` runs on the same import, in turn")
    ap.add_argument("--rounds", type=int, default=1, help="grades of each checkout and of evalplus, alternating")
    args = ap.parse_args()
    problems = read_release(args.release)
    dataset = problems[0].dataset
    with tempfile.TemporaryDirectory(prefix="bench-evalplus-") as tmp:
        tmp = Path(tmp)
        (tmp / "harness" / "tasks").mkdir(parents=True)
        (tmp / "config.toml").write_text(f'[loop]\ndb = "{tmp / "runs.db"}"\n')
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"))
        loop = [*LOOP, "--config", str(tmp / "config.toml")]
        cold, _ = timed([*loop, "tasks", "import", "evalplus", str(args.release)], env, tmp)
        warm, _ = timed([*loop, "tasks", "import", "evalplus", str(args.release)], env, tmp)
        samples = args.samples or (samples_of_corpus(problems, args.hang, tmp / "samples.jsonl") if args.corpus
                                   else samples_from(problems, args.tasks, tmp / "samples.jsonl", tmp / "harness" / "tasks"))
        ids = {json.loads(line)["task_id"] for line in samples.read_text().splitlines() if line.strip()}
        # evalplus.evaluate wants every problem of its dataset in the samples: it reads the same problems only
        release = tmp / ("release.jsonl")
        lines = args.release.read_bytes()
        if args.release.suffix == ".gz":
            import gzip
            lines = gzip.decompress(lines)
        release.write_text("".join(l + "\n" for l in lines.decode().splitlines()
                                   if l.strip() and json.loads(l)["task_id"] in ids))
        grade = [*loop, "grade", "--samples", str(samples), "--json"] + (["--k", str(args.k)] if args.k else [])
        ep_env = dict(env, **{"MBPP_OVERRIDE_PATH" if dataset == "mbpp" else "HUMANEVAL_OVERRIDE_PATH": str(release)})
        print(f"{dataset}: {len(ids)} tasks, {sum(1 for l in samples.read_text().splitlines() if l.strip())} samples")
        print(f"  loop tasks import evalplus: {cold:.1f} s cold, {warm:.1f} s remembered")
        checkouts = [("this checkout", env)] + [(str(d), dict(env, PYTHONPATH=str(d.resolve()))) for d in args.against]
        for _ in range(args.rounds):
            for label, loop_env in checkouts:
                for remembered in ("tables", "verified"):  # each grade as a first run of its seed
                    shutil.rmtree(tmp / "cache" / "loop" / remembered, ignore_errors=True)
                load = os.getloadavg()[0]
                loop_time, out = timed(grade, loop_env, tmp)
                summary = json.loads(out.strip().splitlines()[-1])
                print(f"  loop grade --samples ({label}, load {load:.0f}):  {loop_time:.1f} s{cpu()}; loop's verdict "
                      f"pass@1 {summary['pass_at_k'].get('1', 0):.3f}; EvalPlus numbers base "
                      f"{summary['evalplus']['base']['pass@1']:.3f}, base + extra {summary['evalplus']['plus']['pass@1']:.3f}",
                      flush=True)
            load = os.getloadavg()[0]
            ep_time, ep_out = timed([EVALPLUS, "-c", "import sys; from evalplus.evaluate import evaluate; "
                                     "evaluate(sys.argv[1], samples=sys.argv[2], i_just_wanna_run=True)",
                                     dataset, str(samples)], ep_env, tmp)
            found = re.findall(r"pass@1:\s+([0-9.]+)", ep_out)
            print(f"  evalplus.evaluate (load {load:.0f}):     {ep_time:.1f} s{cpu()}; base {found[0] if found else '?'}, "
                  f"base + extra {found[1] if len(found) > 1 else '?'}", flush=True)


if __name__ == "__main__":
    main()
