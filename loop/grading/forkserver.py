"""Batch grading through a fork server: one pre-started sandbox, one forked child per candidate.

`ForkPool` grades Python candidates with k=1, goldens and named tests only (no relations), with the
verdict, checks and transitions `grade` gives them: the path `loop run --k 1 --trials 0` takes;
`grade_batch` (bench/bench_humaneval.py) wraps it, list in, list out. Each server is a bubblewrap
sandbox (the one `loop grade` uses: no network, read-only system, private /tmp, rlimits, per-sandbox
uid) running a trusted server that has already paid for interpreter start-up and common imports. Per
candidate it forks a child that drops the server's protocol pipes, starts its own session, lowers its
rlimits to the task's, imports the candidate (staged by the server in a fresh job folder), runs the
tests, reports on a pipe of its own and exits. Jobs are pipelined (DEPTH per server) so a server never waits for the parent.

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

from loop import verdicts as V
from loop.grading.attempt import digest, golden_check, outcome, test_check, test_outcome
from loop.grading.grade import Options, conclude, precheck, static_grade
from loop.grading.model import Attempt, Check, Grade
from loop.grading.programs import _scratch, stage_worker, wire_args
from loop.sandbox import CandidateFault, Limits, SandboxConfig, SandboxUnavailable, Worker, clean_env, stage
from loop.tasks import Task, Test

SERVER_SOURCE = r'''
import json, os, select, signal, sys, time, resource
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sandbox_worker as W
# Paid once per server, not once per candidate: what HumanEval-style code imports most. Kept small on
# purpose: every page the server maps is paid again by each fork and each child's exit (shutil, hashlib
# and traceback cost more that way than the few candidates that import them pay themselves).
import collections, functools, itertools, math, re, string, heapq, bisect, random, typing, copy

TIMES = []  # sent back with each reply as "times"
SWEEP = False
FOLDER = "/tmp/job"
NUL = os.open("/dev/null", os.O_RDONLY)

def _ancestors():
    out, pid = {os.getpid()}, os.getpid()
    while pid > 1:
        try:
            with open("/proc/%d/stat" % pid) as fh:
                pid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        out.add(pid)
    out.add(1)
    return out

def _in_sandbox():
    """Sweeping kills every other process it can see: only ever inside bubblewrap's own PID namespace."""
    try:
        with open("/proc/1/comm") as fh:
            return "sweep" in sys.argv and fh.read().strip() == "bwrap"
    except OSError:
        return False

def _reap():
    while True:  # reap what has finished dying; the rest is reaped after the next job
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break

STATE = None  # _state() at start
SWEEP_BUDGET = 1.0  # seconds; a mess that takes longer to clear costs a fresh sandbox instead
STAGED = 64  # entries the job folder may hold and still be cleared in place


def _state():
    """What a process of the same uid can change about the server from outside, dumpable or not (prlimit,
    setpriority, sched_setaffinity, sched_setscheduler), and every later child would inherit; and the modes
    of the writable roots (a candidate owns them and may chmod them)."""
    limits = [resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")]
    roots = [(st.st_mode, st.st_uid) for st in map(os.stat, ("/tmp", "/dev/shm") if SWEEP else ())]
    return (limits, os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0), os.sched_getscheduler(0),
            roots)


def _sweep(keep):
    """Kill every other process in this PID namespace (leftovers of the last child); clear the job folder.
    Returns False when the sandbox is not back to its clean state cheaply: anything else in /tmp or
    /dev/shm, a folder or many files in the job folder, a System V IPC object, a process that would
    not die. The server then quits before taking another job and the parent starts a fresh sandbox, so
    a mess is never charged to the next candidate (and never costs more than SWEEP_BUDGET).

    Unsandboxed (no PID namespace of our own) only the server's own job folder is cleared."""
    try:
        if _state() != STATE:  # a child lowered the server's limits or priority: a fresh server
            return False
        deadline = time.monotonic() + SWEEP_BUDGET
        if SWEEP:
            killed = set()
            while time.monotonic() < deadline:  # a process with SIGKILL pending runs no more code, cannot fork
                new = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in keep and int(n) not in killed]
                if not new:
                    break
                for pid in new:
                    killed.add(pid)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        _reap()
        if SWEEP:
            while time.monotonic() < deadline and any(n.isdigit() and int(n) not in keep for n in os.listdir("/proc")):
                time.sleep(0.001)  # killed, not yet reaped by pid 1
                _reap()
            if any(n.isdigit() and int(n) not in keep for n in os.listdir("/proc")):
                return False
            if os.listdir("/tmp") not in ([], ["job"]) or os.listdir("/dev/shm"):
                return False
            for name in ("shm", "msg", "sem"):
                with open("/proc/sysvipc/" + name) as fh:
                    if len(fh.read(4096).splitlines()) > 1:
                        return False
        if not os.path.lexists(FOLDER):
            return True
        if os.path.islink(FOLDER) or not os.path.isdir(FOLDER):
            return False
        os.chmod(FOLDER, 0o700)
        with os.scandir(FOLDER) as it:
            entries = [e for _, e in zip(range(STAGED + 1), it)]
        if len(entries) > STAGED or any(e.is_dir(follow_symlinks=False) for e in entries):
            return False
        for e in entries:
            os.unlink(e.path)
        return not os.listdir(FOLDER)
    except Exception:
        return False

def _child(job, w, log, path):
    os.setsid()
    os.chdir(FOLDER)
    os.dup2(NUL, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    W.close_all_but(0, 1, 2, w)  # not the job channel, not the server's result channel
    random.seed()  # each candidate's checks draw their own random inputs, as in a fresh process
    cpu = int(job["timeout"]) + 1
    for res, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, job["memory_mb"] << 20),
                       (resource.RLIMIT_FSIZE, job["fsize_mb"] << 20)):
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass
    send = W.sender(w)
    try:
        if any(isinstance(args, dict) for args in job["tests"]):
            # check(candidate) tests decide the verdict here: the candidate gets a process of its own
            proxy, error = W.split(path, job["entry"], job["source"])
            if error is None:
                send({"results": [W.answer(proxy, args, job["entry"]) for args in job["tests"]]})
        else:
            fn, error = W.load(path, job["entry"], job["source"])  # exec, not importlib: no lazy imports
            if error is None:
                send({"results": [W.call(fn, args) for args in job["tests"]]})
        if error is not None:
            send({"build_error": error})
    except W.Lost:
        os._exit(1)  # the candidate's process stopped answering the checks: its crash
    os._exit(0)

def _run(job):
    t0 = time.monotonic()
    # Staged by the server (the child's first writes would each cost it copy-on-write faults).
    os.makedirs(FOLDER, exist_ok=True)
    path = os.path.join(FOLDER, os.path.basename(job["file"]))
    with open(path, "wb") as fh:
        fh.write(job["source"].encode("utf-8", "surrogatepass"))
    log = os.open(FOLDER + "/.output", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _child(job, w, log, path)
        finally:
            os._exit(70)
    os.close(w)
    os.close(log)
    deadline = time.monotonic() + job["timeout"]
    buf, status, fault = b"", None, None
    while True:
        if b"\n" in buf:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            fault = {"fault": "timeout", "detail": "exceeded the %gs wall-clock limit" % job["timeout"]}
            break
        ready, _, _ = select.select([r], [], [], min(left, 0.05))
        if ready:
            chunk = os.read(r, 1 << 20)
            if not chunk:
                break
            buf += chunk
            if len(buf) > 64 << 20:
                fault = {"fault": "resource", "detail": "result message exceeded 64 MiB"}
                break
        elif status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                ready, _, _ = select.select([r], [], [], 0)
                if not ready:
                    break
    got = b"\n" in buf
    if status is None and not got and fault is None:
        # the result pipe closed without a message: the child is exiting; get its own status
        end = time.monotonic() + 1.0
        while status is None and time.monotonic() < end:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            else:
                time.sleep(0.001)
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        if not got or fault is not None:
            _, status = os.waitpid(pid, 0)
    os.close(r)
    t1 = time.monotonic()
    try:
        with open(FOLDER + "/.output", "rb") as fh:
            output = fh.read(65536).decode("utf-8", "replace")
    except OSError:
        output = ""
    TIMES[:] = [round(t1 - t0, 6)]  # diagnostics: fork to result, seconds
    if fault is None:
        line = buf.split(b"\n", 1)[0] if b"\n" in buf else b""
        try:
            msg = json.loads(line) if line else None
        except Exception:  # deep nesting, 5000-digit ints, bad UTF-8: the candidate wrote it
            msg = None
        if isinstance(msg, dict) and isinstance(msg.get("results"), list):
            return {"results": msg["results"], "output": output}
        if isinstance(msg, dict) and isinstance(msg.get("build_error"), str):
            return {"build_error": msg["build_error"], "output": output}
        if status is None:  # a line that is not a report: the child was killed above
            _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            kind = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource", signal.SIGKILL: "resource"}.get(sig, "crash")
            fault = {"fault": kind, "detail": "killed by %s" % signal.Signals(sig).name}
        else:
            fault = {"fault": "crash", "detail": "the candidate exited early (status %d)" % os.WEXITSTATUS(status)}
    fault["output"] = output
    return fault

def main():
    out_fd, in_fd = int(sys.argv[1]), int(sys.argv[2])
    global SWEEP, FOLDER, STATE
    SWEEP = _in_sandbox()
    if not SWEEP:  # unsandboxed servers must not share a job folder in the host's /tmp
        import tempfile
        FOLDER = os.path.join(tempfile.mkdtemp(prefix="loop-forkserver-"), "job")
    keep = _ancestors()
    STATE = _state()

    send = W.sender(out_fd)
    try:
        W.nodump()  # children inherit it: no /proc/<pid>/fd, mem or ptrace of the server or of each other
    except Exception:
        send({"lost": "the fork server could not make itself undumpable (prctl)"})
        return
    if not _sweep(keep):
        send({"lost": "the sandbox is not clean at start"})
        return
    import gc
    gc.collect()
    gc.freeze()  # children's collections then leave the server's objects (and their pages) alone
    send({"ready": 1})
    for line in W.lines(in_fd):
        job = json.loads(line)
        reply = _run(job)
        reply["id"] = job["id"]
        reply["times"] = TIMES
        send(reply)
        # Overlaps with the parent's work on the reply; the next job is read only after it.
        if not _sweep(keep):
            send({"lost": "the sandbox was not clean after the last candidate"})
            break
    if not SWEEP:
        import shutil
        shutil.rmtree(os.path.dirname(FOLDER), ignore_errors=True)

main()
'''

MARGIN = 5.0  # seconds past a job's own limit before the parent gives up on the server itself


class ForkServer:
    """One sandboxed fork server; restarted after any failure (blamed on the job it was running)."""

    def __init__(self, cfg: SandboxConfig, *, wall: float = 3600.0, memory_mb: int = 2048):
        self.cfg = cfg
        self.folder = _scratch("loop-forkserver-")
        stage(self.folder, "server.py", SERVER_SOURCE)
        stage_worker(self.folder, "sandbox_worker.py")  # imported by that name, with the codec beside it
        # The server's own rlimits are the ceiling; each child lowers them to its task's.
        self.limits = Limits(wall=wall, memory_mb=memory_mb, nproc=256, output_bytes=1 << 20, tmpfs_mb=256)
        self.worker: Worker | None = None
        self.starts = 0
        self.inflight: deque = deque()  # (id, job, tag, tries), oldest first

    def _start(self) -> Worker:
        where = "/work" if self.cfg.enabled else str(self.folder)  # unsandboxed: the host folder itself
        argv = [self.cfg.interpreter(), "-s", "-S", "-P", "-B", f"{where}/server.py", "{fd}", "{jobs}"]
        if self.cfg.enabled:
            argv.append("sweep")
        worker = Worker(self.cfg, argv, limits=self.limits, env=clean_env(0), ro={"/work": str(self.folder)},
                        deadline=time.monotonic() + 60.0, private_input=True, capture=False,
                        encode=lambda rid, job: (json.dumps({**job, "id": rid}) + "\n").encode())
        msg = worker.ready()
        if "ready" not in msg:
            worker.close()
            raise SandboxUnavailable(f"fork server did not start: {msg}")
        self.starts += 1
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
        self.worker._sent += 1
        self.inflight.append((self.worker._sent, job, tag, tries))
        try:
            self.worker._write(self.worker._encode(self.worker._sent, job))
        except CandidateFault:
            pass  # the server is gone; receive() reports it against the oldest job in flight

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
            if self.worker.dead:
                raise self.worker.dead
            while True:
                msg = self.worker._next_message()
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
        return static_grade(task, item.source, item.opts, cfg, V.BUILD, str(reply["build_error"]))
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
                            answer(item, static_grade(item.task, item.source, item.opts, self.cfg,
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
