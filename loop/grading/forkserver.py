"""Batch grading through a fork server: one pre-started sandbox, one forked child per candidate.

`ForkPool` grades Python candidates with k=1, goldens and named tests only (no relations), with the
verdict, checks and transitions `grade` gives them: the path `loop run --k 1 --trials 0` takes;
`grade_batch` (bench/bench_humaneval.py) wraps it, list in, list out. Each server is a bubblewrap
sandbox (the one `loop grade` uses: no network, read-only system, private /tmp, rlimits, per-sandbox
uid) running a trusted server (forkserver_main.py) that has already paid for interpreter start-up and
common imports. Per candidate it forks a child that drops the server's protocol pipes, starts its own
session, lowers its rlimits to the task's, imports the candidate (staged by the server in a fresh job
folder), runs the tests, reports on a pipe of its own and exits. Jobs are pipelined (DEPTH per server)
so a server never waits for the parent.

Isolation between candidates (SECURITY.md has the whole trust boundary): jobs reach the server on a pipe
no process in the sandbox can open (not stdin: bwrap's pid 1 keeps that), the server and its children are
undumpable, and each child reports on a pipe of its own. A child's memory, globals and monkeypatches die
with it; after each child the server kills what it left running and deletes its few staged files, or, if
the sandbox is not back to its clean state at once, quits so the parent starts a fresh one. A lost server
costs the jobs in flight a retry; only a job whose server is lost twice while it runs fails (its own
grade). Expected values stay in the parent, as for `loop grade` (check-form tests of imported tasks
excepted: they run in the child, the candidate in a process of its own; see harness/README.md).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from loop import verdicts as V
from loop.grading.attempt import digest, golden_check, outcome, test_check, test_outcome
from loop.grading.grade import Options, conclude, precheck, grade_without_attempts
from loop.grading.model import Attempt, Check, Grade
from loop.grading.programs import scratch, stage_worker, wire_args
from loop.sandbox import CandidateFault, Limits, SandboxConfig, SandboxUnavailable, Worker, clean_env, stage
from loop.tasks import Task, Test

SERVER_SOURCE = Path(__file__).resolve().with_name("forkserver_main.py")  # the program the sandbox runs
MARGIN = 5.0  # seconds past a job's own limit before the parent gives up on the server itself


class ForkServer:
    """One sandboxed fork server; restarted after any failure (blamed on the job it was running)."""

    def __init__(self, cfg: SandboxConfig, *, wall: float = 3600.0, memory_mb: int = 2048):
        self.cfg = cfg
        self.folder = scratch("loop-forkserver-")
        stage(self.folder, SERVER_SOURCE.name, SERVER_SOURCE.read_bytes())
        stage_worker(self.folder, "sandbox_worker.py")  # imported by that name, with the codec beside it
        # The server's own rlimits are the ceiling; each child lowers them to its task's.
        self.limits = Limits(wall=wall, memory_mb=memory_mb, nproc=256, output_bytes=1 << 20, tmpfs_mb=256)
        self.worker: Worker | None = None
        self.inflight: deque = deque()  # (id, job, tag, tries), oldest first

    def _start(self) -> Worker:
        where = "/work" if self.cfg.enabled else str(self.folder)  # unsandboxed: the host folder itself
        argv = [self.cfg.interpreter(), "-s", "-S", "-P", "-B", f"{where}/{SERVER_SOURCE.name}", "{fd}", "{jobs}"]
        if self.cfg.enabled:
            argv.append("sweep")
        worker = Worker(self.cfg, argv, limits=self.limits, env=clean_env(0), ro={"/work": str(self.folder)},
                        deadline=time.monotonic() + 60.0, private_input=True, capture=False,
                        encode=lambda rid, job: (json.dumps({**job, "id": rid}) + "\n").encode())
        msg = worker.ready()
        if "ready" not in msg:
            worker.close()
            raise SandboxUnavailable(f"fork server did not start: {msg}")
        return worker

    def run(self, job: dict) -> dict:
        """Run one job: {"results": [...]}, {"build_error": ...} or {"fault": kind, "detail": ...}."""
        self.submit(job, None)
        while True:
            reply, _, lost = self.receive()
            if reply is not None:
                return reply
            for j, t, tries in lost:
                self.submit(j, t, tries)

    def submit(self, job: dict, tag, tries: int = 0) -> None:
        """Queue a job behind the ones in flight (the server runs them one after another, in order).

        Raises SandboxUnavailable when a fresh server cannot start."""
        if self.worker is None or self.worker.dead:
            if self.worker is not None:
                self.worker.close()
            self.worker = self._start()
        if not self.inflight:
            self.worker.deadline = time.monotonic() + job["timeout"] + MARGIN
        try:
            rid = self.worker.send(job)
        except CandidateFault:  # the server is gone; receive() reports it against the oldest job in flight
            rid = -1  # no reply's id
        self.inflight.append((rid, job, tag, tries))

    def receive(self) -> tuple[dict | None, object, list]:
        """(reply, tag, lost): the reply to the oldest job in flight and its tag, or (None, None, lost)
        when the server went away; `lost` lists (job, tag, tries) to submit again, oldest first.

        A lost server costs the jobs in flight a retry, never a verdict: the server quits between jobs
        when its sandbox is not clean (nobody's fault), and a child may kill or stop it. Only a job that
        was running when its server was lost on its retry as well is answered with the fault."""
        rid, job, tag, tries = self.inflight[0]
        if self.worker.dead is None:  # this job started at the latest when the previous reply came
            self.worker.deadline = time.monotonic() + job["timeout"] + MARGIN
        try:
            while True:
                msg = self.worker.receive()  # raises at once if the server is already dead
                if msg.get("id") == rid:
                    self.inflight.popleft()
                    return msg, tag, []
                if "lost" in msg:
                    return None, None, self._drop(0)
        except CandidateFault as fault:  # the server itself died or hung while running this job
            if tries >= 1:
                self.inflight.popleft()
                return ({"fault": fault.check, "output": "",
                         "detail": f"{fault.detail} (the fork server was lost twice on this candidate)"},
                        tag, self._drop(0))
            return None, None, self._drop(1)

    def _drop(self, charge: int) -> list:
        """Forget the server and the jobs in flight; the oldest is charged `charge` more tries."""
        lost = [(j, t, n + (charge if i == 0 else 0)) for i, (_, j, t, n) in enumerate(self.inflight)]
        self.inflight.clear()
        self.worker.close()
        self.worker = None
        return lost

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def job_for(task: Task, source: str, tests: list[tuple]) -> dict:
    return {"source": source, "file": task.candidate_file, "entry": task.entry_point,
            "tests": [wire_args(args) for args in tests], "timeout": float(task.limits.wall),
            "memory_mb": task.limits.memory_mb, "fsize_mb": task.limits.fsize_mb}


@dataclass(eq=False)
class _Item:
    future: Future
    task: Task
    source: str
    opts: Options
    quarantined: frozenset
    started: float = 0.0
    base: list | None = None  # the baseline's replies to the named tests, once known


def _baseline_results(item: _Item, reply: dict) -> list:
    n = len(item.task.selected(item.opts.suite))
    why = str(reply.get("detail", reply.get("build_error", "?")))[:200]
    return reply.get("results") or [{"raised": "the baseline failed: " + why}] * n


def _finish(item: _Item, reply: dict, cfg: SandboxConfig, duration: float) -> Grade:
    """The server's reply to a candidate job -> the Grade `loop grade` gives with k=1 and no relations."""
    task, q = item.task, item.quarantined
    if "build_error" in reply:
        return grade_without_attempts(task, item.source, item.opts, cfg, V.BUILD, str(reply["build_error"]))
    checks: list[Check] = []
    values: list = []
    tests = task.selected(item.opts.suite)
    cases = [(g, None) for g in task.goldens] + list(zip(tests, item.base or [None] * len(tests)))
    results = reply.get("results")
    try:
        if results is None and "fault" in reply:
            raise CandidateFault(str(reply["fault"]), str(reply.get("detail", "")))
        if not (isinstance(results, list) and len(results) == len(cases) and all(isinstance(m, dict) for m in results)):
            raise CandidateFault(V.CRASH, "the result channel was corrupted")  # the candidate wrote on it
        for (case, base_msg), msg in zip(cases, results):
            if "resource" in msg:  # as in run_attempt: a resource fault ends the attempt
                raise CandidateFault(V.RESOURCE, str(msg["resource"]))
            ok, value = outcome(msg)
            values.append(msg.get("ok", {"raised": msg.get("raised")}))
            if isinstance(case, Test):
                base_out = test_outcome(case, base_msg) if base_msg is not None else None
                checks.append(test_check(task, case, ok, value, base_out, q))
            else:
                checks.append(golden_check(task, case, ok, value, q))
    except CandidateFault as fault:
        checks.append(Check(fault.check, "fault", False, fault.detail, quarantined=fault.check in q))
    out = reply.get("output", "").encode()
    attempt = Attempt(0, V.PASS, None, None, digest(values, out, b""), round(duration, 4), item.opts.seed,
                      clean_env(0), checks)
    return conclude(task, item.source, item.opts, cfg, [attempt])


DEPTH = 2  # jobs queued per server: the next one is waiting while the host reads a reply


class ForkPool:
    """Fork servers shared by many grades: `submit` returns a Future of the Grade `loop grade` would give
    with k=1 and no relations (goldens, named tests and their transitions). Python tasks only.

    Each of `servers` threads drives one fork server (started at once); candidates wait in one queue for
    the first free server. A task's baseline runs once per pool and suite, on whichever server needs it.
    """

    def __init__(self, cfg: SandboxConfig, servers: int = 2):
        self.cfg = cfg
        self._work: queue.Queue[_Item | None] = queue.Queue()
        self._baselines: dict[tuple, list] = {}
        self._lock = threading.Lock()
        self._started = threading.Semaphore(0)  # released once per server, when its first start is over
        self._threads = [threading.Thread(target=self._drive, daemon=True, name=f"loop-forkserver-{i}")
                         for i in range(max(1, servers))]
        for t in self._threads:
            t.start()

    def submit(self, task: Task, source: str | None, opts: Options, quarantined=frozenset()) -> Future:
        if task.language != "python":
            raise ValueError(f"task '{task.name}': the fork server grades Python tasks only")
        if opts.k != 1 or opts.trials:
            raise ValueError("the fork server grades with k=1 and no relations")
        item = _Item(Future(), task, source, opts, frozenset(quarantined))
        decided = precheck(task, source, opts, self.cfg)
        if decided is not None:
            item.future.set_result(decided)
        else:
            self._work.put(item)
        return item.future

    def wait_started(self) -> None:
        """Block until every server has tried its first start (benchmarks time the steady state from here)."""
        for _ in self._threads:
            self._started.acquire()

    def close(self, cancel: bool = False) -> None:
        """Wait for every submitted grade (or, with cancel, only for those already started), then stop."""
        while cancel:
            try:
                item = self._work.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item.future.cancel()
        for _ in self._threads:
            self._work.put(None)
        for t in self._threads:
            t.join()

    def __enter__(self) -> "ForkPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _plan(self, item: _Item, backlog: deque) -> None:
        """Queue the item's jobs: its task's baseline first (unless already known), then the candidate."""
        tests = item.task.selected(item.opts.suite)
        if item.task.baseline is not None:
            key = (str(item.task.path), item.opts.suite)
            with self._lock:
                item.base = self._baselines.get(key)
            if item.base is None:
                backlog.append((job_for(item.task, item.task.baseline, [t.args for t in tests]), ("baseline", item), 0))
        args = [g.args for g in item.task.goldens] + [t.args for t in tests]
        backlog.append((job_for(item.task, item.source, args), ("candidate", item), 0))

    def _drive(self) -> None:
        server = ForkServer(self.cfg)
        held: set[_Item] = set()  # taken from the queue, not answered yet
        backlog: deque = deque()  # (job, (role, item), tries) to (re)submit before taking new items
        done = False

        def answer(item: _Item, grade: Grade) -> None:
            held.discard(item)
            if not item.future.cancelled():  # the caller may have given up on it (loop run interrupted)
                item.future.set_result(grade)

        try:
            try:
                server.worker = server._start()
            except SandboxUnavailable:
                pass  # submit() below tries again and answers each candidate infra_unknown if it fails
            finally:
                self._started.release()
            while True:
                while len(server.inflight) < DEPTH and (backlog or not done):
                    if not backlog:
                        try:
                            item = self._work.get() if not server.inflight else self._work.get_nowait()
                        except queue.Empty:
                            break
                        if item is None:
                            done = True
                            break
                        held.add(item)
                        self._plan(item, backlog)
                        continue
                    job, (role, item), tries = backlog.popleft()
                    try:
                        item.started = time.monotonic()
                        server.submit(job, (role, item), tries)
                    except SandboxUnavailable as exc:
                        if role == "baseline":
                            item.base = _baseline_results(item, {"detail": str(exc)})
                        else:
                            answer(item, grade_without_attempts(item.task, item.source, item.opts, self.cfg,
                                                      V.INFRA_UNKNOWN, str(exc), V.INFRA_UNKNOWN))
                if not server.inflight:
                    if done and not backlog:
                        return
                    continue
                reply, tag, lost = server.receive()
                backlog.extendleft(reversed(lost))
                if reply is None:
                    continue
                role, item = tag
                if role == "baseline":
                    item.base = _baseline_results(item, reply)
                    with self._lock:
                        self._baselines[(str(item.task.path), item.opts.suite)] = item.base
                else:
                    answer(item, _finish(item, reply, self.cfg, time.monotonic() - item.started))
        except BaseException as exc:  # a bug here must reach every caller, not leave one waiting
            for item in held:
                if not item.future.cancelled():
                    item.future.set_exception(exc)
            while (item := self._work.get()) is not None:
                if not item.future.cancelled():
                    item.future.set_exception(exc)
        finally:
            server.close()


def grade_batch(items: Iterable[tuple[Task, str]], cfg: SandboxConfig, *, suite: str = "full", seed: int = 1,
                servers: int = 2) -> list[Grade]:
    """Grade each (task, source) with k=1, goldens and named tests only; one Grade per item, in order.

    `items` may be a generator: grading starts while the caller is still loading tasks.
    """
    opts = Options(suite=suite, seed=seed, trials=0, k=1)
    with ForkPool(cfg, servers) as pool:
        futures = [pool.submit(task, source, opts) for task, source in items]
    return [f.result() for f in futures]
