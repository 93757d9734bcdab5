"""The executor seam: `submit(task, source, opts, quarantined) -> Future[Grade]`, and the TaskRef a task travels as.

To another process or host a task travels as a `TaskRef` (name, content digest, folder), so the other side
loads it once and refuses a copy whose digest differs. An executor may
also offer `status() -> dict` (e.g. workers connected, grades in flight) for the progress line.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from loop import kinds, tasks
from loop.errors import TaskError
from loop.grading.model import Grade, Options
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig


@dataclass(frozen=True)
class TaskRef:
    """A task as it crosses to another process or host: its name, its folder's digest, and the folder to load it
    from there. Within one process a Task is passed as it is."""

    name: str
    digest: str  # sha256 over the folder's files (relative path and bytes), see kinds.task.task_digest
    folder: str

    @classmethod
    def of(cls, task: Task) -> TaskRef:
        return cls(task.name, task.digest, str(task.path))


def load_ref(ref: TaskRef) -> Task:
    """The task a ref names, verified: a folder changed since the ref was made is an error, not a grade
    against other tests."""
    task = tasks.load_folder(Path(ref.folder))
    if task.digest != ref.digest:
        raise TaskError(f"task '{ref.name}' changed on disk since the batch started (digest mismatch)")
    return task


class Executor(Protocol):
    def accepts(self, task: Task, opts: Options) -> bool: ...

    def submit(self, task: Task, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future: ...

    def close(self, cancel: bool = False) -> None: ...


_LOADED: dict[TaskRef, Task] = {}  # in a grading process: each task loaded once, its oracle and inputs kept


def grade_ref(ref: TaskRef, source: str | None, cfg: SandboxConfig, opts: Options, quarantined: frozenset) -> Grade:
    """One grade in another process: the task loaded there once per process, graded by its kind."""
    if ref not in _LOADED:
        _LOADED[ref] = load_ref(ref)
    return kinds.grade(_LOADED[ref], source, cfg, opts, quarantined)


def die_with_parent() -> None:
    """Grading workers (and through --die-with-parent, their sandboxes) die when loop is killed."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


