"""Every canonical solution of EvalPlus release files, graded by `loop grade --samples` at the defaults under
several seeds: how many are `stable_pass`, and each one that is not, with the check that failed it in repeat 0.

A canonical solution is a right answer by EvalPlus's reading; under loop's it passes unless loop's own
reference and contract read the docstring differently (HumanEval+: loop keeps its corrected references,
docs/evalplus-contracts.md). What must never show here is a `flaky` verdict: a right answer whose grade
depends on the hash seed or the load. Printed too: the solutions whose EvalPlus numbers (base, base + extra, as
evalplus computes them) are not both passes.

    .venv/bin/python bench/bench_canonical.py RELEASE.jsonl[.gz] [RELEASE ...] [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loop.datasets.evalplus import read_release, task_name  # noqa: E402

LOOP = [sys.executable, "-m", "loop"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("releases", type=Path, nargs="+")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-canonical-") as tmp:
        tmp = Path(tmp)
        (tmp / "harness" / "tasks").mkdir(parents=True)
        (tmp / "config.toml").write_text(f'[loop]\ndb = "{tmp / "runs.db"}"\n')
        loop = [*LOOP, "--config", str(tmp / "config.toml")]
        env = {"XDG_CACHE_HOME": str(tmp / "cache")}
        rows = []
        for release in args.releases:
            start = time.monotonic()
            subprocess.run([*loop, "tasks", "import", "evalplus", str(release)], cwd=tmp, check=True,
                           capture_output=True, env={**os.environ, **env})
            print(f"{release.name}: imported in {time.monotonic() - start:.1f} s", flush=True)
            for p in read_release(release):
                if (tmp / "harness" / "tasks" / task_name(p.task_id)).is_dir():  # what the import kept
                    glue = "" if p.dataset == "humaneval" else "\n"
                    rows.append({"task_id": p.task_id, "solution": p.prompt + glue + p.canonical_solution})
        samples = tmp / "canonical.jsonl"
        samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
        for seed in args.seeds:
            start = time.monotonic()
            subprocess.run([*loop, "grade", "--samples", str(samples), "--seed", str(seed), "--json"], cwd=tmp,
                           capture_output=True, env={**os.environ, **env})
            took = time.monotonic() - start
            with sqlite3.connect(tmp / "runs.db") as db:
                batch = db.execute("SELECT max(id) FROM batches").fetchone()[0]
                verdicts = dict(db.execute("SELECT verdict, count(*) FROM candidates WHERE batch_id = ? "
                                           "GROUP BY verdict", (batch,)).fetchall())
                others = db.execute(
                    "SELECT c.task, c.verdict, (SELECT k.\"check\" || ': ' || coalesce(k.detail, '') FROM checks k "
                    "WHERE k.candidate_id = c.id AND k.passed = 0 ORDER BY k.repeat, k.id LIMIT 1) "
                    "FROM candidates c WHERE c.batch_id = ? AND c.verdict != 'stable_pass' ORDER BY c.task",
                    (batch,)).fetchall()
                numbers = db.execute("SELECT task, base, plus FROM evalplus_numbers WHERE batch_id = ? AND "
                                     "NOT (base AND plus) ORDER BY task", (batch,)).fetchall()
            print(f"seed {seed}: {len(rows)} canonical solutions in {took:.1f} s: {verdicts}", flush=True)
            for task, verdict, check in others:
                print(f"  {task} {verdict}: {(check or '')[:150]}")
            print("  EvalPlus's numbers failing: " + (", ".join(
                f"{task} ({'base' if not base else ''}{' + ' if not base and not plus else ''}{'plus' if not plus else ''})"
                for task, base, plus in numbers) or "none"), flush=True)


if __name__ == "__main__":
    main()
