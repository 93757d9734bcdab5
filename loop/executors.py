"""Executors: where grades run. `submit(ref, source, opts, quarantined) -> Future[Grade]`.

The runner asks `for_batch` for one and never branches on language, k or trials itself. A task travels
as a `TaskRef` (name and content digest, plus the folder this machine loads it from), so an executor on
another machine can fetch the task by name and refuse a copy whose digest differs. Shipped:

- `LocalExecutor`: a process pool; each worker loads a task once and grades with the task's kind;
- `ForkExecutor`: fork servers for Python function tasks (any k; relations where the parent can decide
  them from one batch of values: differential fuzzing, see loop/grading/forkserver_fuzz.py);
- `InlineExecutor`: grades in the caller's thread (tests, debugging; the smallest executor);
- `Routed`: the first executor that accepts a grade gets it;
- `loop.cluster.ClusterExecutor`: a Dask cluster (`loop[cluster]`), whose workers grade with `for_batch` in turn.

An executor may also offer `status() -> dict` (e.g. workers connected, grades in flight) for the progress line.
"""

from __future__ import annotations

from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from loop import tasks
from loop.cachedir import cache_dir
from loop.errors import ConfigError, TaskError
from loop.grading.grade import Options, grade
from loop.grading.model import Grade
from loop.sandbox import SandboxConfig


@dataclass(frozen=True)
class TaskRef:
    name: str
    digest: str  # sha256 over the folder's files (relative path and bytes), see tasks.task_digest
    root: str    # the project root this machine loads the task from


def ref_for(root: Path, task: tasks.Task) -> TaskRef:
    """The task's ref; this process's executors then grade the very Task loaded here (its oracle, and the
    inputs it generated, are shared) instead of loading the folder again."""
    ref = TaskRef(task.name, task.digest, str(root))
    _CACHE.setdefault(ref, task)
    return ref


def load_ref(ref: TaskRef) -> tasks.Task:
    """The task a ref names, verified: a folder changed since the ref was made is an error, not a grade
    against other tests."""
    task = tasks.load(Path(ref.root), ref.name)
    if task.digest != ref.digest:
        raise TaskError(f"task '{ref.name}' changed on disk since the batch started (digest mismatch)")
    return task


class Executor(Protocol):
    def accepts(self, task: tasks.Task, opts: Options) -> bool: ...

    def submit(self, ref: TaskRef, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future: ...

    def close(self, cancel: bool = False) -> None: ...


_CACHE: dict[TaskRef, tasks.Task] = {}


def _loaded(ref: TaskRef) -> tasks.Task:
    if ref not in _CACHE:
        _CACHE[ref] = load_ref(ref)
    return _CACHE[ref]


def grade_ref(ref: TaskRef, source: str | None, cfg: SandboxConfig, opts: Options, quarantined: frozenset) -> Grade:
    """One grade where the executor runs it: the task loaded once per process, graded by its kind."""
    return grade(_loaded(ref), source, cfg, opts, quarantined)


def _die_with_parent() -> None:
    """Grading workers (and through --die-with-parent, their sandboxes) die when loop is killed."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class LocalExecutor:
    def __init__(self, cfg: SandboxConfig, workers: int):
        self.cfg = cfg
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent)

    def accepts(self, task: tasks.Task, opts: Options) -> bool:
        return True

    def submit(self, ref: TaskRef, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        return self.pool.submit(grade_ref, ref, source, self.cfg, opts, frozenset(quarantined))

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class InlineExecutor:
    def __init__(self, cfg: SandboxConfig):
        self.cfg = cfg

    def accepts(self, task: tasks.Task, opts: Options) -> bool:
        return True

    def submit(self, ref: TaskRef, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        fut: Future = Future()
        try:
            fut.set_result(grade_ref(ref, source, self.cfg, opts, frozenset(quarantined)))
        except Exception as exc:  # noqa: BLE001 - delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut

    def close(self, cancel: bool = False) -> None:
        pass


class ForkExecutor:
    """Fork servers: the grade `grade` gives, a fork per repeat instead of a sandbox start
    (loop/grading/forkserver.py)."""

    def __init__(self, cfg: SandboxConfig, workers: int, k: int = 1):
        from loop.grading.forkserver import ForkPool

        # Tables (inputs and the reference's answers) are remembered only for sandboxed grades: an unsandboxed
        # candidate runs as the user and could write the cache the next run reads.
        self.pool = ForkPool(cfg, workers, k, tables=cache_dir() / "tables" if cfg.enabled else None)

    @staticmethod
    def accepts(task: tasks.Task, opts: Options) -> bool:
        from loop.grading.forkserver import ForkPool

        return ForkPool.accepts(task, opts)

    def submit(self, ref: TaskRef, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        return self.pool.submit(_loaded(ref), source, opts, quarantined)

    def close(self, cancel: bool = False) -> None:
        self.pool.close(cancel=cancel)


class Routed:
    """Each grade goes to the first executor that accepts it; the last should accept everything."""

    def __init__(self, executors: list, loaded: dict[str, tasks.Task]):
        self.executors, self.loaded = executors, loaded

    def accepts(self, task: tasks.Task, opts: Options) -> bool:
        return any(e.accepts(task, opts) for e in self.executors)

    def submit(self, ref: TaskRef, source: str | None, opts: Options, quarantined: frozenset = frozenset()) -> Future:
        task = self.loaded[ref.name]
        chosen = next(e for e in self.executors if e.accepts(task, opts))
        return chosen.submit(ref, source, opts, quarantined)

    def close(self, cancel: bool = False) -> None:
        for e in self.executors:
            e.close(cancel=cancel)


def connect(address: str, warn=None, timeout: float = 10.0):
    """A connection to the Dask scheduler at `address` (loop.cluster.Cluster), made before a batch writes
    anything; without the `cluster` extra installed, a one-line error saying what to install."""
    try:
        from loop import cluster
    except ImportError as exc:
        raise ConfigError(f"--cluster {address}: grading on a cluster needs Dask ({exc}); "
                          "pip install 'loop[cluster]'") from None
    return cluster.Cluster(address, warn, timeout)


def for_batch(cfg: SandboxConfig, opts: Options, loaded: dict[str, tasks.Task], workers: int, cluster=None):
    """The executor a batch grades with: on a cluster (a `connect`ed one) if given, else fork servers where
    they apply and a process pool for the rest."""
    if cluster is not None:
        return cluster.executor(cfg, loaded)
    executors: list = []
    if any(ForkExecutor.accepts(t, opts) for t in loaded.values()):
        executors.append(ForkExecutor(cfg, workers, opts.k))
    executors.append(LocalExecutor(cfg, workers))
    return Routed(executors, loaded)
