"""This machine's executors: a process pool, fork servers for Python function tasks, inline grading, and the
router that gives each grade to the first executor that accepts it."""

from __future__ import annotations

from concurrent.futures import Future, ProcessPoolExecutor

from loop.cachedir import cache_dir
from loop.executors.base import TaskRef, die_with_parent, grade_ref
from loop.kinds import grade
from loop.executors.fork import ForkPool
from loop.grading.model import Options
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig


class LocalExecutor:
    def __init__(self, cfg: SandboxConfig, workers: int):
        self.cfg = cfg
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent)

    def accepts(self, task: Task, opts: Options) -> bool:
        return True

    def submit(self, task: Task, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        return self.pool.submit(grade_ref, TaskRef.of(task), source, self.cfg, opts, frozenset(quarantined))

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class InlineExecutor:
    def __init__(self, cfg: SandboxConfig):
        self.cfg = cfg

    def accepts(self, task: Task, opts: Options) -> bool:
        return True

    def submit(self, task: Task, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        fut: Future = Future()
        try:
            fut.set_result(grade(task, source, self.cfg, opts, frozenset(quarantined)))
        except Exception as exc:  # noqa: BLE001 - delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut

    def close(self, cancel: bool = False) -> None:
        pass


class ForkExecutor:
    """Fork servers: the grade `grade` gives, a fork per repeat instead of a sandbox start
    (loop.executors.fork)."""

    def __init__(self, cfg: SandboxConfig, workers: int, k: int = 1):
        # Tables (inputs and the reference's answers) are remembered only for sandboxed grades: an unsandboxed
        # candidate runs as the user and could write the cache the next run reads.
        self.pool = ForkPool(cfg, workers, k, tables=cache_dir() / "tables" if cfg.enabled else None)

    @staticmethod
    def accepts(task: Task, opts: Options) -> bool:
        return ForkPool.accepts(task, opts)

    def submit(self, task: Task, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        return self.pool.submit(task, source, opts, quarantined)

    def close(self, cancel: bool = False) -> None:
        self.pool.close(cancel=cancel)


class Routed:
    """Each grade goes to the first executor that accepts it; the last should accept everything."""

    def __init__(self, executors: list):
        self.executors = executors

    def accepts(self, task: Task, opts: Options) -> bool:
        return any(e.accepts(task, opts) for e in self.executors)

    def submit(self, task: Task, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        chosen = next(e for e in self.executors if e.accepts(task, opts))
        return chosen.submit(task, source, opts, quarantined)

    def close(self, cancel: bool = False) -> None:
        for e in self.executors:
            e.close(cancel=cancel)


def for_machine(cfg: SandboxConfig, opts: Options, tasks: dict[str, Task], workers: int,
                started: ForkExecutor | None = None) -> Routed:
    """Fork servers where they apply and a process pool for the rest (a cluster's workers use this too).
    `started`: fork servers started while the tasks loaded, used if any task takes them, else stopped."""
    executors: list = []
    if any(ForkExecutor.accepts(t, opts) for t in tasks.values()):
        executors.append(started or ForkExecutor(cfg, workers, opts.k))
    elif started is not None:
        started.close()
    executors.append(LocalExecutor(cfg, workers))
    return Routed(executors)
