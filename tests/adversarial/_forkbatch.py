"""Grade candidate files one after another on ONE fork server (so each meets the state its predecessor
left); prints one JSON list of verdicts. Run as any user: python _forkbatch.py TASK FILE..."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from loop import tasks  # noqa: E402
from loop.grading.forkserver import grade_batch  # noqa: E402
from loop.sandbox import SandboxConfig  # noqa: E402

task = tasks.load(ROOT, sys.argv[1])
grades = grade_batch([(task, Path(f).read_text()) for f in sys.argv[2:]], SandboxConfig(), servers=1)
print(json.dumps([[g.verdict, [f["check"] for f in g.failures()]] for g in grades]))
