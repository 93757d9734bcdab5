"""Tasks a run may grade: loaded, their baseline polarity checked once (and remembered across runs), their
quarantined checks; and the seed rotation a batch records.
"""

from __future__ import annotations

from pathlib import Path

from loop import kinds, tasks
from loop.cachedir import cache_dir
from loop.cachedir import key as cache_key
from loop.config import Config
from loop.errors import SandboxUnavailable, TaskError
from loop.grading.triage import load_quarantine
from loop.kinds.task import NOTE
from loop.sandbox import SandboxConfig


def quarantined_checks(config: Config, task: str) -> set[str]:
    entries = load_quarantine(config.root / "harness" / "quarantine.toml")
    return {q.check for q in entries if q.task == task}


_POLARITY_OK: set[tuple] = set()


def _verified_marker(task: tasks.Task, sandbox: SandboxConfig) -> Path:
    """Where a task whose polarity held is remembered across runs: keyed by its folder's content, the
    sandbox settings and loop's code, so any change to the task checks it again (164 imported HumanEval
    tasks cost 328 sandbox starts to check, more than grading a samples file of them does)."""
    return cache_dir() / "verified" / cache_key(task.digest, repr(sandbox))


def load_verified_task(config: Config, name: str, sandbox: SandboxConfig) -> tasks.Task:
    """Load a task and refuse it when baseline polarity does not hold.

    Without a working sandbox polarity cannot be checked; the grade then says `inconclusive`.
    """
    task = tasks.load(config.root, name)
    key = (str(task.path), task.baseline, task.reference, repr(task.tests), sandbox)
    if key not in _POLARITY_OK:
        marker = _verified_marker(task, sandbox)
        if not marker.exists():
            try:
                problems = [p for p in kinds.get(task.kind).polarity(task, sandbox) if not p.startswith(NOTE)]
            except SandboxUnavailable:
                return task
            if problems:
                raise TaskError(f"task refused: {problems[0]}")
            try:
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.touch()
            except OSError:
                pass  # an unwritable cache costs the next run the check, nothing else
        _POLARITY_OK.add(key)
    return task
