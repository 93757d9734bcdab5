"""This machine's executors: a process pool, inline grading, the pools task kinds offer (fork servers for
Python functions), and the router that gives each grade to the first executor that accepts it."""

from __future__ import annotations

from concurrent.futures import Future, ProcessPoolExecutor

from loop.executors.base import TaskRef, die_with_parent, grade_ref
from loop import kinds
from loop.kinds import grade
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


def for_machine(cfg: SandboxConfig, opts: Options, tasks: dict[str, Task], workers: int, started=None) -> Routed:
    """The pools the tasks' kinds offer where they accept a task (fork servers), and a process pool for the rest
    (a cluster's workers use this too). `started`: a kind's pool started while the tasks loaded (prestart),
    used if it accepts a task, else stopped."""
    executors: list = []
    for name in sorted({t.kind for t in tasks.values()}):
        offered = kinds.pool(name)
        if offered is not None and any(offered.accepts(t, opts) for t in tasks.values() if t.kind == name):
            use = started if isinstance(started, offered) else offered(cfg, workers, opts.k)
            executors.append(use)
    if started is not None and started not in executors:
        started.close()
    executors.append(LocalExecutor(cfg, workers))
    return Routed(executors)
