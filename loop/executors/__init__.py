"""Executors: where grades run. `submit(task, source, opts, quarantined) -> Future[Grade]` (base.Executor).

A batch asks `for_batch` for one and never branches on language, k or trials itself. Within this process a
Task is handed over as it is; to another process or host it travels as a `TaskRef` (base), loaded there once
and refused when its digest differs. Shipped:

- `LocalExecutor`: a process pool; each worker loads a task once and grades with the task's kind;
- a pool a task kind offers for its own tasks (`TaskKind.pool`: the function kind's fork servers for Python,
  loop.kinds.function.fork), chosen through the kinds registry without looking inside the kind;
- `InlineExecutor`: grades in the caller's thread (tests, debugging; the smallest executor);
- `Routed`: the first executor that accepts a grade gets it;
- `cluster.ClusterExecutor`: a Dask cluster (`loop[cluster]`), whose workers grade with `local.for_machine` in turn.

An executor may also offer `status() -> dict` (e.g. workers connected, grades in flight) for the progress line.
"""

from __future__ import annotations

from loop.errors import ConfigError
from loop import kinds
from loop.executors.local import for_machine
from loop.grading.model import Options
from loop.kinds.task import Task
from loop.sandbox import SandboxConfig


def connect(address: str, warn=None, timeout: float = 10.0):
    """A connection to the Dask scheduler at `address` (loop.executors.cluster.Cluster), made before a batch writes
    anything; without the `cluster` extra installed, a one-line error saying what to install."""
    try:
        from loop.executors import cluster
    except ImportError as exc:
        raise ConfigError(f"--cluster {address}: grading on a cluster needs Dask ({exc}); "
                          "pip install 'loop[cluster]'") from None
    return cluster.Cluster(address, warn, timeout)


def for_batch(cfg: SandboxConfig, opts: Options, loaded: dict[str, Task], workers: int, cluster=None,
              started=None):
    """The executor a batch grades with: on a cluster (a `connect`ed one) if given, else this machine's
    (`started`: see prestart)."""
    if cluster is not None:
        if started is not None:
            started.close()
        return cluster.executor(cfg, loaded)
    return for_machine(cfg, opts, loaded, workers, started)


def prestart(cfg: SandboxConfig, opts: Options, workers: int, kind: str):
    """The pool `kind` offers, started now, while a batch's tasks load: handed to for_batch, which stops it if no
    task takes it. None if the kind offers none."""
    offered = kinds.pool(kind)
    return offered(cfg, workers, opts.k) if offered is not None else None
