"""Grade candidate files one after another on ONE fork server per repeat (so each meets the state its
predecessor left); prints one JSON list of verdicts and failed checks. Run as any user:

    python _forkbatch.py [--k K] [--trials T] [--seed S] [--root DIR] TASK FILE...
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop.kinds.function.fork import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--k", type=int, default=1)
ap.add_argument("--trials", type=int, default=0)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--root", type=Path, default=ROOT)
ap.add_argument("task")
ap.add_argument("files", nargs="+")
args = ap.parse_args()
task = tasks.load(args.root, args.task)
grades = grade_batch([(task, Path(f).read_text()) for f in args.files], SandboxConfig(), servers=args.k, k=args.k,
                     trials=args.trials, seed=args.seed)
print(json.dumps([[g.verdict, [f["check"] for f in g.failures()]] for g in grades]))
