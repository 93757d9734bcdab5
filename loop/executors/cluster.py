"""Grading on a Dask cluster: `ClusterExecutor` sends each grade to a `dask worker` and gets the Grade back as data.

Workers are started plainly (`dask worker ADDRESS --nworkers 1 --nthreads 1`). Connecting registers `LoopPlugin`
on every worker, present and future: it refuses a worker whose sandbox does not start or whose loop code differs,
unpacks the batch's task folders into a per-host cache keyed by content hash (verified by `base.load_ref`),
and holds the worker's own fork servers and process pool (`local.for_machine`). Only the coordinator writes
runs.db: each submitted grade resolves its future once, however many times Dask ran it. Needs `loop[cluster]`.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

import distributed
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.diagnostics.plugin import WorkerPlugin

from loop import verdicts as V
from loop.cachedir import code_version
from loop.errors import ClusterError, SandboxUnavailable
from loop.executors import base
from loop.executors.local import Routed, for_machine
from loop.grading.conclude import grade_without_attempts
from loop.grading.model import Check, Grade, Options
from loop.kinds.task import Task, task_files
from loop.sandbox import Limits, SandboxConfig, clean_env, run

CHUNK_SECONDS = 1.0  # worker time one Dask task should hold: far above Dask's per-task cost, short to balance
MAX_CHUNK = 256
TOPIC = "loop-worker"  # worker -> coordinator events (refusals), through the scheduler's event log
log = logging.getLogger("loop.executors.cluster")
def pack(folder: Path) -> dict[str, tuple[int, bytes]]:
    """A task folder as data: relative path -> (mode, bytes), the files `kinds.task.task_digest` covers."""
    return {str(p.relative_to(folder)): (p.stat().st_mode & 0o777, p.read_bytes()) for p in task_files(folder)}


def task_cache() -> Path:
    """LOOP_TASK_CACHE, else ~/.cache/loop/tasks; as root /var/cache/loop/tasks (sandboxes then run as another
    uid, which cannot enter /root)."""
    if os.environ.get("LOOP_TASK_CACHE"):
        return Path(os.environ["LOOP_TASK_CACHE"])
    return Path("/var/cache/loop/tasks") if os.geteuid() == 0 else Path.home() / ".cache" / "loop" / "tasks"


def unpack(name: str, digest: str, files: dict[str, tuple[int, bytes]], cache: Path) -> base.TaskRef:
    """The task in this host's cache (written once per digest, renamed into place whole), as a ref to load."""
    root = cache / digest
    if not (root / "harness" / "tasks" / name / "task.toml").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=cache, prefix=f".{digest[:12]}-"))
        tmp.chmod(0o755)  # as root, sandboxes run as other uids: they may need to read the task's files
        for rel, (mode, data) in files.items():
            path = tmp / "harness" / "tasks" / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(mode | 0o444)
        try:
            tmp.rename(root)
        except OSError:  # another worker on this host renamed the same digest first
            shutil.rmtree(tmp, ignore_errors=True)
    return base.TaskRef(name, digest, str(root / "harness" / "tasks" / name))


def refusal(version: str, cfg: SandboxConfig) -> str | None:
    """Why this worker may not grade (None: it may): other loop code, or a sandbox that does not start."""
    mine = code_version()
    if mine != version:
        return f"it runs loop {mine}, the coordinator loop {version}"
    if cfg.enabled:
        try:
            run(cfg, ["/bin/true"], limits=Limits(wall=30), env=clean_env())
        except SandboxUnavailable as exc:
            return str(exc)
    return None


class LoopPlugin(WorkerPlugin):
    """Per worker process: the refusal check, the task cache and the executors that grade (one slot per thread)."""

    def __init__(self, name: str, version: str, cfg: SandboxConfig, packed: dict[str, tuple[str, dict]]):
        self.name, self.version, self.cfg, self.packed = name, version, cfg, packed  # packed: digest -> (name, files)

    def setup(self, worker) -> None:
        self.problem = refusal(self.version, self.cfg)
        if self.problem:
            # Not an exception: a worker joining later would log it and take tasks anyway. It leaves instead.
            log.error("loop refuses this worker: %s", self.problem)
            worker.log_event(TOPIC, {"worker": worker.address, "refused": self.problem})
            worker.loop.add_callback(worker.close, nanny=True, reason=f"loop refused it: {self.problem}")
            return
        refs = [unpack(name, digest, files, task_cache()) for digest, (name, files) in self.packed.items()]
        self.tasks = {r.digest: base.load_ref(r) for r in refs}  # verifies each folder's digest
        self.slots = worker.state.nthreads
        # A nanny starts its worker as a daemonic process, and multiprocessing refuses daemons children. The flag
        # exists so children die with the worker; the pool's do anyway (base.die_with_parent).
        multiprocessing.current_process()._config["daemon"] = False
        self.lock = threading.Lock()
        self.routed: dict[Options, Routed] = {}

    def grade(self, items: list[tuple], opts: Options) -> tuple[list[Grade], float]:
        """Grade (task digest, source, quarantined) items at once on this worker's executors; the grades in order and
        the seconds they took (the coordinator sizes its chunks by it)."""
        if self.problem:  # never reached: a refused worker closes before it takes tasks
            raise RuntimeError(f"worker refused: {self.problem}")
        start = time.monotonic()
        with self.lock:
            if opts not in self.routed:
                self.routed[opts] = for_machine(self.cfg, opts, {t.name: t for t in self.tasks.values()}, self.slots)
        futures = [self.routed[opts].submit(self.tasks[digest], source, opts, q) for digest, source, q in items]
        return [f.result() for f in futures], time.monotonic() - start

    def teardown(self, worker) -> None:
        for routed in getattr(self, "routed", {}).values():
            routed.close(cancel=True)


def grade_on_worker(plugin: str, items: list[tuple], opts: Options) -> tuple[list[Grade], float]:
    """What a Dask task runs: a chunk of grades, by the plugin this coordinator registered on the worker."""
    return distributed.get_worker().plugins[plugin].grade(items, opts)


def worker_lost(task: Task, source: str | None, opts: Options, cfg: SandboxConfig, detail: str) -> Grade:
    """A candidate whose grading kept killing workers: inconclusive (infra_unknown attempts), reason worker_lost."""
    g = grade_without_attempts(task, source, opts, cfg, V.WORKER_LOST, V.WORKER_LOST, V.INFRA_UNKNOWN)
    return replace(g, checks=[Check(V.WORKER_LOST, "fault", False, detail)], notes=[detail])


class Cluster:
    """A connection to a Dask scheduler, opened before a batch writes anything (an unreachable scheduler is
    an input error, exit 2, nothing written)."""

    def __init__(self, address: str, warn=None, timeout: float = 10.0):
        self.address, self.warn = address, warn or (lambda message: None)
        try:  # checked before a Client exists: a half-made one spends 20 s closing itself at exit
            scheme, location = parse_address(address)
            if scheme in ("tcp", "tls"):
                parse_host_port(location)
        except ValueError as exc:
            raise ClusterError(f"{address!r} is not a scheduler address ({exc}): give tcp://HOST:8786") from None
        try:
            self.client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
        self.client.subscribe_topic(TOPIC, self._event)
        self._asked, self._seen = 0.0, (0, 0)

    def _event(self, event) -> None:
        _, msg = event
        if isinstance(msg, dict) and "refused" in msg:
            self.warn(f"worker {msg['worker']} refused: {msg['refused']}")

    def _counts(self) -> tuple[int, int]:
        """(workers, threads) from the scheduler's totals, asked at most once a second: each ask is a round trip,
        and the progress line and the sender want them per grade."""
        now = time.monotonic()
        if now - self._asked > 1.0:
            try:
                info = self.client.scheduler_info(n_workers=0)  # totals only, not one entry per worker
                self._seen = (int(info.get("n_workers", 0)), int(info.get("total_threads", 0)))
            except Exception:  # noqa: BLE001 - the scheduler going away is noticed by the grades' futures
                pass
            self._asked = now
        return self._seen

    def workers(self) -> int:
        return self._counts()[0]

    def threads(self) -> int:
        return self._counts()[1]

    def executor(self, cfg: SandboxConfig, loaded: dict[str, Task]) -> ClusterExecutor:
        return ClusterExecutor(self, cfg, loaded)

    def close(self) -> None:
        try:
            self.client.close(timeout=5)
        except Exception:  # noqa: BLE001 - a scheduler already gone leaves nothing to close cleanly
            pass


@dataclass
class _Item:
    task: Task
    source: str | None
    opts: Options
    quarantined: frozenset
    out: Future


class ClusterExecutor:
    """The executor seam (loop.executors) over Dask. Grades travel in chunks sized so that one takes about
    CHUNK_SECONDS on a worker (a k=1 screen grades in milliseconds: one Dask task each would cost more in
    scheduling than in grading), with at most two chunks per worker thread handed to Dask at a time. A chunk
    whose worker died more often than the scheduler's allowed-failures is split into single grades; a single
    grade that still kills its workers is `worker_lost`."""

    def __init__(self, cluster: Cluster, cfg: SandboxConfig, loaded: dict[str, Task]):
        self.cluster, self.client, self.cfg, self.loaded = cluster, cluster.client, cfg, loaded
        self.plugin = f"loop-{uuid.uuid4().hex[:12]}"
        packed = {t.digest: (t.name, pack(t.path)) for t in loaded.values()}
        self.queue: list[_Item] = []
        self.chunks: dict[str, tuple[distributed.Future, list[_Item]]] = {}
        self.chunk = 1  # grades per Dask task, from the seconds the last chunk took
        self.wake = threading.Condition()
        self.closing = False
        responses = self.client.sync(self.client.scheduler.register_worker_plugin, name=self.plugin,
                                     plugin=distributed.protocol.pickle.dumps(LoopPlugin(self.plugin, code_version(), cfg, packed)),
                                     idempotent=False)
        broken = [addr for addr, r in responses.items() if r.get("status") != "OK"]
        for addr in broken:  # e.g. loop not installed there: it cannot even read the plugin
            self.cluster.warn(f"worker {addr} refused: cannot set up loop on it ({responses[addr].get('exception_text', '')})")
        if broken:
            self.client.retire_workers(broken, close_workers=True)
        if not self.cluster.workers():
            self.cluster.warn(f"no workers connected to {cluster.address} yet: grades wait for the first one")
        self.sender = threading.Thread(target=self._send, daemon=True, name="loop-cluster-sender")
        self.sender.start()

    def accepts(self, task: Task, opts: Options) -> bool:
        return True

    def submit(self, task: Task, source: str | None, opts: Options,
               quarantined: frozenset = frozenset()) -> Future:
        item = _Item(task, source, opts, frozenset(quarantined), Future())
        with self.wake:
            self.queue.append(item)
            self.wake.notify()
        return item.out

    def _send(self) -> None:
        """Hand chunks to Dask while fewer than two per worker thread are out (the rest wait here, in order)."""
        while True:
            with self.wake:
                while not self.closing and not (self.queue and len(self.chunks) < 2 * max(1, self.cluster.threads())):
                    self.wake.wait(timeout=0.5)
                if self.closing:
                    return
                opts = self.queue[0].opts
                n = min(self.chunk, -(-len(self.queue) // max(1, self.cluster.threads())))
                items = [i for i in self.queue if i.opts == opts][:n]
                taken = set(map(id, items))
                self.queue = [i for i in self.queue if id(i) not in taken]
                try:
                    self._dispatch(items, opts)
                except Exception as exc:  # noqa: BLE001 - a client that lost its scheduler refuses new work
                    lost = ClusterError(f"lost the Dask scheduler at {self.cluster.address} ({exc})")
                    for item in items:
                        item.out.set_exception(lost)

    def _dispatch(self, items: list[_Item], opts: Options) -> None:
        key = f"loop-grade-{uuid.uuid4().hex}"
        payload = [(i.task.digest, i.source, i.quarantined) for i in items]
        d = self.client.submit(grade_on_worker, self.plugin, payload, opts, key=key, pure=False)
        self.chunks[key] = (d, items)
        d.add_done_callback(self._done)

    def _done(self, d) -> None:
        """One answer per submitted grade: its Grade, worker_lost, or the scheduler lost (the batch stops)."""
        with self.wake:
            _, items = self.chunks.pop(d.key, (None, []))
            self.wake.notify()
        if self.closing:
            return
        try:
            if d.status == "finished":
                grades, seconds = d.result()
                self.chunk = max(1, min(MAX_CHUNK, round(CHUNK_SECONDS * len(grades) / max(seconds, 1e-3))))
                for item, g in zip(items, grades):
                    item.out.set_result(g)
            elif d.status == "error" and isinstance(d.exception(), distributed.KilledWorker):
                if len(items) > 1:  # find the one that kills workers: each alone, with a fresh count
                    with self.wake:
                        for item in items:
                            self._dispatch([item], item.opts)
                else:
                    i = items[0]
                    i.out.set_result(worker_lost(i.task, i.source, i.opts, self.cfg, str(d.exception())))
            elif d.status == "error":
                for item in items:
                    item.out.set_exception(d.exception())
            else:
                raise ClusterError(d.status)
        except Exception as exc:  # noqa: BLE001 - cancelled by a lost scheduler, or its result lost with it
            lost = ClusterError(f"lost the Dask scheduler at {self.cluster.address} ({type(exc).__name__}: {exc})")
            for item in items:
                if not item.out.done():
                    item.out.set_exception(lost)
        finally:
            d.release()

    def status(self) -> dict:
        """For the progress line: workers connected and grades in flight (handed to Dask, not answered)."""
        with self.wake:
            inflight = sum(len(items) for _, items in self.chunks.values())
        return {"workers": self.cluster.workers(), "inflight": inflight}

    def close(self, cancel: bool = False) -> None:
        with self.wake:
            self.closing = True
            self.wake.notify()
            left = [d for d, _ in self.chunks.values()]
            for item in self.queue:
                item.out.cancel()
        if self.client.status == "running":
            try:
                if cancel and left:
                    self.client.cancel(left)
                self.client.unregister_worker_plugin(self.plugin)
            except Exception:  # noqa: BLE001 - the scheduler went away while closing
                pass
