"""Tasks a run may grade: loaded, their baseline polarity checked once (and remembered across runs), their
quarantined checks; and the seed rotation a batch records.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
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


def load_verified_tasks(config: Config, names: list[str], sandbox: SandboxConfig,
                        known: dict[str, tasks.Task] | None = None) -> dict[str, tasks.Task]:
    """load_verified_task of each name (`known`: tasks loaded already): those whose polarity is remembered one after
    another (nothing to wait on: threads would only contend for the interpreter, 164 HumanEval tasks 100 ms against
    40), the others side by side, since each check waits on sandboxes."""
    loaded = {name: (known or {}).get(name) or tasks.load(config.root, name) for name in names}
    rest = [task for task in loaded.values() if not _remembered(task, sandbox)]
    with ThreadPoolExecutor(max_workers=max(1, min(len(rest), os.cpu_count() or 1) * 2)) as pool:
        list(pool.map(lambda task: _verified(task, sandbox), rest))  # (raises the first refusal, in name order)
    return loaded


def _polarity_key(task: tasks.Task, sandbox: SandboxConfig) -> tuple:
    return str(task.path), task.baseline, task.reference, repr(task.tests), sandbox


def _remembered(task: tasks.Task, sandbox: SandboxConfig) -> bool:
    """Whether the task's polarity held before, in this process or (its marker) in an earlier run."""
    key = _polarity_key(task, sandbox)
    if key not in _POLARITY_OK and _verified_marker(task, sandbox).exists():
        _POLARITY_OK.add(key)
    return key in _POLARITY_OK


def load_verified_task(config: Config, name: str, sandbox: SandboxConfig) -> tasks.Task:
    """Load a task and refuse it when baseline polarity does not hold.

    Without a working sandbox polarity cannot be checked; the grade then says `inconclusive`.
    """
    return _verified(tasks.load(config.root, name), sandbox)


def _verified(task: tasks.Task, sandbox: SandboxConfig) -> tasks.Task:
    """`task`, once its baseline polarity held (checked here unless remembered); a TaskError when it does not."""
    if _remembered(task, sandbox):
        return task
    try:
        problems = [p for p in kinds.get(task.kind).polarity(task, sandbox) if not p.startswith(NOTE)]
    except SandboxUnavailable:
        return task
    if problems:
        raise TaskError(f"task refused: {problems[0]}")
    marker = _verified_marker(task, sandbox)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass  # an unwritable cache costs the next run the check, nothing else
    _POLARITY_OK.add(_polarity_key(task, sandbox))
    return task
