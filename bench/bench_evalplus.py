"""loop and evalplus.evaluate side by side on one samples file of an EvalPlus dataset: both import times
(loop's `tasks import evalplus`, cold and remembered), both grade times (start-up included), and both pass@1
pairs (base, base + extra): loop's own verdict, loop's EvalPlus numbers, and evalplus.evaluate's.

Without --samples, the samples file is made from the release file itself: for each of the first --tasks
problems loop imported with EvalPlus numbers, its canonical solution and one mutant of it (the first `<` made `<=`, else the first `+` made `-`,
else a solution returning None): right and wrong answers both.

    .venv/bin/python bench/bench_evalplus.py RELEASE.jsonl[.gz] [--samples FILE] [--tasks N] [--k K]

The evalplus package must be installed (the `evalplus` extra of `make venv`); it reads RELEASE through
MBPP_OVERRIDE_PATH / HUMANEVAL_OVERRIDE_PATH and is run with i_just_wanna_run (no stored results reused).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop.datasets.evalplus import read_release, task_name  # noqa: E402

LOOP = [sys.executable, "-m", "loop"]
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


def timed(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, str]:
    start = time.monotonic()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.monotonic() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} failed ({done.returncode}): {done.stderr[-800:]}")
    return took, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("release", type=Path)
    ap.add_argument("--samples", type=Path)
    ap.add_argument("--tasks", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=None, help="loop's repeats (default: loop's default)")
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
        samples = args.samples or samples_from(problems, args.tasks, tmp / "samples.jsonl", tmp / "harness" / "tasks")
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
        loop_time, out = timed(grade, env, tmp)
        summary = json.loads(out.strip().splitlines()[-1])
        ep_env = dict(env, **{"MBPP_OVERRIDE_PATH" if dataset == "mbpp" else "HUMANEVAL_OVERRIDE_PATH": str(release)})
        ep_time, ep_out = timed([EVALPLUS, "-c", "import sys; from evalplus.evaluate import evaluate; "
                                 "evaluate(sys.argv[1], samples=sys.argv[2], i_just_wanna_run=True)",
                                 dataset, str(samples)], ep_env, tmp)
        found = re.findall(r"pass@1:\s+([0-9.]+)", ep_out)
        print(f"{dataset}: {len(ids)} tasks, {sum(1 for l in samples.read_text().splitlines() if l.strip())} samples")
        print(f"  loop tasks import evalplus: {cold:.1f} s cold, {warm:.1f} s remembered")
        print(f"  loop grade --samples:  {loop_time:.1f} s; loop's verdict pass@1 {summary['pass_at_k'].get('1', 0):.3f}; "
              f"EvalPlus numbers base {summary['evalplus']['base']['pass@1']:.3f}, "
              f"base + extra {summary['evalplus']['plus']['pass@1']:.3f}")
        print(f"  evalplus.evaluate:     {ep_time:.1f} s; base {found[0] if found else '?'}, "
              f"base + extra {found[1] if len(found) > 1 else '?'}")


if __name__ == "__main__":
    main()
