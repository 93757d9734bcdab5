"""One fork server: a pre-started sandbox running inside/forkserver.py, fed jobs on a private pipe (a job is one
candidate's calls for one repeat); the parent restarts a server it loses. The pool of servers is fork.py."""

from __future__ import annotations

import json
import math
import time
from collections import deque
from pathlib import Path

from loop.errors import CandidateFault, SandboxUnavailable
from loop.kinds.function.programs import stage_worker, wire_args
from loop.kinds.task import Task
from loop.sandbox import Limits, SandboxConfig, Worker, clean_env, scratch, stage

SERVER_SOURCE = Path(__file__).resolve().parents[3] / "sandbox" / "inside" / "forkserver.py"  # the program the sandbox runs


WALL_PER_CPU = 4  # a CPU-limited job's wall clock, per second of CPU it may use
STARVED = 5  # ... and the wall clocks it may have in all while still at work (a loaded machine starves it)
MARGIN = 5.0  # seconds past a job's own limit before the parent gives up on the server itself


class ForkServer:
    """One sandboxed fork server; restarted after any failure (blamed on the job it was running)."""

    def __init__(self, cfg: SandboxConfig, *, repeat: int = 0, wall: float = 3600.0, memory_mb: int = 2048):
        self.cfg, self.repeat = cfg, repeat  # the repeat whose environment (PYTHONHASHSEED) it runs with
        self.folder = scratch("loop-forkserver-")
        stage(self.folder, SERVER_SOURCE.name, SERVER_SOURCE.read_bytes())
        stage_worker(self.folder)  # imported by that name, with the codec beside it
        # The server's own rlimits are the ceiling; each child lowers them to its task's.
        self.limits = Limits(wall=wall, memory_mb=memory_mb, nproc=256, output_bytes=1 << 20, tmpfs_mb=256)
        self.worker: Worker | None = None
        self.inflight: deque = deque()  # (id, job, tag, tries), oldest first

    def _start(self) -> Worker:
        where = "/work" if self.cfg.enabled else str(self.folder)  # unsandboxed: the host folder itself
        argv = [self.cfg.interpreter(), "-s", "-S", "-P", "-B", f"{where}/{SERVER_SOURCE.name}", "{fd}", "{jobs}"]
        if self.cfg.enabled:
            argv.append("sweep")
        worker = Worker(self.cfg, argv, limits=self.limits, env=clean_env(self.repeat), ro={"/work": str(self.folder)},
                        deadline=time.monotonic() + 60.0, private_input=True, capture=False,
                        encode=_line)
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
            self.worker.deadline = time.monotonic() + patience(job) + MARGIN
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
            self.worker.deadline = time.monotonic() + patience(job) + MARGIN
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


class Job(dict):
    """A job for a fork server, encoded once however many repeats send it (200 fuzzed inputs, k times)."""

    body: bytes | None = None

    def line(self, rid: int) -> bytes:
        if self.body is None:
            self.body = json.dumps(self).encode()
        return b'{"id": %d, ' % rid + self.body[1:] + b"\n"


def patience(job: dict) -> float:
    """The longest a job may run on its server: its wall clock, or for a job still at work, its patience."""
    return max(job["timeout"], job.get("patience", 0))


def _line(rid: int, job: dict) -> bytes:
    return (job if isinstance(job, Job) else Job(job)).line(rid)


def job_for(task: Task, source: str, tests: list[tuple], wires: list = (), need: float = 0.0,
            limit: float | None = None, common: int | None = None) -> Job:
    """A candidate job: the named tests' arguments, then (differential fuzzing) the kept inputs' wires. Its
    time: the task's wall clock, or the fuzzed batch's budget if larger (as run_attempt extends it); or, where
    the work's own time is known (split trials), `limit` seconds of CPU time (a load on the machine does not
    eat into it) within WALL_PER_CPU times as much wall-clock time (for a candidate that sleeps), STARVED times that
    for one still at work when it runs out (starved by a loaded machine: its CPU time decides). `common`: the
    output of the first `common` tests is marked apart (what every repeat runs: the digest's)."""
    timing = ({"timeout": WALL_PER_CPU * limit, "cpu": math.ceil(limit), "patience": STARVED * WALL_PER_CPU * limit}
              if limit is not None
              else {"timeout": max(float(task.limits.wall), need)})
    return Job(source=source, file=task.candidate_file, entry=task.entry_point,
               tests=[wire_args(args) for args in tests] + list(wires), **timing,
               memory_mb=task.limits.memory_mb, fsize_mb=task.limits.fsize_mb, output_bytes=task.limits.output_bytes,
               **({"common": common} if common is not None else {}))
