"""The function kind's own pool: fork servers that grade Python function tasks a fork per repeat instead of a
sandbox start. The kind offers it (FunctionKind.pool); executors place grades on it and never look inside.

- `pool.py`: ForkPool, the lanes of servers and a grade's replies in flight;
- `server.py`: one sandboxed server (inside/forkserver.py) and its jobs;
- `trials.py`: differential fuzzing's values on the servers (the reference's table, the relations' asker);
- `replies.py`: a grade in the making (`Item`).
Every per-value decision is kinds/function/decide.py's, the same as on the fresh-sandbox path.
"""

from __future__ import annotations

from concurrent.futures import Future

from loop.cachedir import cache_dir
from loop.grading.model import Options
from loop.kinds.function.fork.pool import ForkPool, grade_batch
from loop.kinds.function.fork.server import ForkServer, job_for
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig

__all__ = ["ForkExecutor", "ForkPool", "ForkServer", "grade_batch", "job_for"]


class ForkExecutor:
    """The fork servers as an executor (accepts, submit, close): what `FunctionKind.pool` offers."""

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
