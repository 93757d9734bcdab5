"""Batch grading through a fork server: one pre-started sandbox, one forked child per candidate.

`grade_batch` grades many (task, source) pairs with k=1 and named tests (and goldens) only, no relations:
the throughput path (bench/bench_humaneval.py). Each server is a bubblewrap sandbox (the same one
`loop grade` uses: no network, read-only system, private /tmp, rlimits, per-sandbox uid) running a
trusted server that has already paid for interpreter start-up and common imports. Per candidate it
forks a child that drops the server's protocol pipes, starts its own session, lowers its rlimits to the
task's, imports the candidate (staged by the server in a fresh job folder), runs the tests, reports on a
pipe of its own and exits. Jobs are pipelined (DEPTH per server) so a server never waits for the parent.

Isolation between candidates: a child's memory, globals and monkeypatches die with it (copy-on-write
fork); after each child the server kills every other process left in the sandbox's PID namespace (daemons,
grandchildren) and wipes /tmp, so nothing carries over to the next child; a child that kills, stops or
floods the server, or outlives its wall clock, fails only its own grade: the parent restarts the server and
carries on with the next candidate. Expected values stay in the parent, as for `loop grade` (check-form
tests of imported tasks excepted, see harness/README.md).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from loop import verdicts as V
from loop.grading import triage
from loop.grading.attempt import golden_matches, outcome, same_value, digest, transition
from loop.grading.model import Attempt, Check, Grade
from loop.grading.programs import WORKER_SOURCE, _scratch, wire_args
from loop.relations import json_repr
from loop.sandbox import CandidateFault, Limits, SandboxConfig, SandboxUnavailable, Worker, clean_env, stage
from loop.sandbox_worker import enc
from loop.tasks import Task

SERVER_SOURCE = r'''
import json, os, select, signal, sys, time, resource, types
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

def _nodump():
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: children cannot open /proc/<server>/fd
    except Exception:
        pass

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

def _force_rmtree(path):
    """Remove path whatever modes the last child left on it (same uid: the server may chmod it back)."""
    import shutil  # rarely needed: only after a candidate left more than its own files
    def fix(func, p, exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass
    if os.path.isdir(path) and not os.path.islink(path):
        try:
            os.chmod(path, 0o700)
        except OSError:
            pass
        shutil.rmtree(path, onerror=fix)
    else:
        os.unlink(path)

def _sweep(keep):
    """Kill every other process in this PID namespace (leftovers of the last child), then wipe /tmp.
    Returns False when the sandbox could not be brought back to a clean state (the server then quits
    before taking another job, so the next candidate is never graded in a dirty sandbox).

    Unsandboxed (no PID namespace of our own) only the server's own job folder is wiped."""
    try:
        if not SWEEP:
            _reap()
            if os.path.lexists(FOLDER):
                _force_rmtree(FOLDER)
            return not os.path.lexists(FOLDER)
        killed = set()
        for _ in range(1000):  # a process with SIGKILL pending runs no more user code and cannot fork
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
        os.chmod("/tmp", 0o1777)
        top = os.listdir("/tmp")
        if top == ["job"] and os.stat(FOLDER).st_mode & 0o700 == 0o700 and not os.path.islink(FOLDER):
            entries = list(os.scandir(FOLDER))
            if not any(e.is_dir(follow_symlinks=False) for e in entries):
                for e in entries:  # the usual case: just the files the server staged
                    os.unlink(e.path)
                return not os.listdir(FOLDER)
        for name in top:
            _force_rmtree(os.path.join("/tmp", name))
        return not os.listdir("/tmp")
    except Exception:
        return False

def _child(job, w, out_fd, in_fd, log, path):
    os.close(out_fd)
    os.close(in_fd)
    os.setsid()
    os.chdir(FOLDER)
    os.dup2(NUL, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(NUL)
    cpu = int(job["timeout"]) + 1
    for res, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, job["memory_mb"] << 20),
                       (resource.RLIMIT_FSIZE, job["fsize_mb"] << 20)):
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass
    def send(msg):
        data = (json.dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(w, data):]
    try:
        # compile + exec, not importlib: its lazy imports would be paid again in every child
        module = types.ModuleType("candidate")
        module.__file__ = path
        sys.modules["candidate"] = module
        exec(compile(job["source"], path, "exec"), module.__dict__)
        fn = getattr(module, job["entry"])
        if not callable(fn):
            raise TypeError(job["entry"] + " is not callable")
    except BaseException as exc:
        import traceback
        send({"build_error": "".join(traceback.format_exception(exc))[-4000:]})
        os._exit(0)
    replies = []
    for args in job["tests"]:
        reply = {}
        try:
            if isinstance(args, dict):
                W.run_check(args["check"], fn, job["entry"])
                reply["ok"] = None
            else:
                reply["ok"] = W.enc(fn(*W.dec(args)))
        except BaseException as exc:
            reply.update(W._classify(exc))
        replies.append(reply)
    send({"results": replies})
    os._exit(0)

def _run(job, out_fd, in_fd, keep):
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
            os.close(r)
            _child(job, w, out_fd, in_fd, log, path)
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
        except ValueError:
            msg = None
        if isinstance(msg, dict) and ("results" in msg or "build_error" in msg):
            msg["output"] = output
            return msg
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            kind = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource", signal.SIGKILL: "resource"}.get(sig, "crash")
            fault = {"fault": kind, "detail": "killed by %s" % signal.Signals(sig).name}
        else:
            fault = {"fault": "crash", "detail": "the candidate exited early (status %d)" % os.WEXITSTATUS(status)}
    fault["output"] = output
    return fault

def main():
    out_fd = os.dup(int(sys.argv[1]))
    os.close(int(sys.argv[1]))
    in_fd = os.dup(0)
    _nodump()
    global SWEEP, FOLDER
    SWEEP = _in_sandbox()
    if not SWEEP:  # unsandboxed servers must not share a job folder in the host's /tmp
        import tempfile
        FOLDER = os.path.join(tempfile.mkdtemp(prefix="loop-forkserver-"), "job")
    keep = _ancestors()
    if not _sweep(keep):
        send_early = (json.dumps({"lost": "the sandbox is not clean at start"}) + "\n").encode()
        os.write(out_fd, send_early)
        return
    def send(msg):
        data = (json.dumps(msg) + "\n").encode()
        while data:
            data = data[os.write(out_fd, data):]
    import gc
    gc.collect()
    gc.freeze()  # children's collections then leave the server's objects (and their pages) alone
    send({"ready": 1})
    for line in W.lines(in_fd):
        job = json.loads(line)
        reply = _run(job, out_fd, in_fd, keep)
        reply["id"] = job["id"]
        reply["times"] = TIMES
        send(reply)
        # Overlaps with the parent's work on the reply; the next job is read only after it.
        if not _sweep(keep):
            send({"lost": "the sandbox could not be cleaned after the last candidate"})
            os._exit(3)
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
        stage(self.folder, "sandbox_worker.py", WORKER_SOURCE.read_bytes())
        # The server's own rlimits are the ceiling; each child lowers them to its task's.
        self.limits = Limits(wall=wall, memory_mb=memory_mb, nproc=256, output_bytes=1 << 20, tmpfs_mb=256)
        self.worker: Worker | None = None
        self.starts = 0
        self.restarts_clean = 0
        self.inflight: deque = deque()  # (id, job, tag), oldest first

    def _start(self) -> Worker:
        where = "/work" if self.cfg.enabled else str(self.folder)  # unsandboxed: the host folder itself
        argv = [self.cfg.interpreter(), "-s", "-S", "-P", "-B", f"{where}/server.py", "{fd}"]
        if self.cfg.enabled:
            argv.append("sweep")
        worker = Worker(self.cfg, argv, limits=self.limits, env=clean_env(0), ro={"/work": str(self.folder)},
                        deadline=time.monotonic() + 60.0,
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
        reply, _, _ = self.receive()
        return reply

    def submit(self, job: dict, tag) -> None:
        """Queue a job behind the ones in flight (the server runs them one after another, in order)."""
        if self.worker is None or self.worker.dead:
            if self.worker is not None:
                self.worker.close()
            self.worker = self._start()
        if not self.inflight:
            self.worker.deadline = time.monotonic() + job["timeout"] + MARGIN
        self.worker._sent += 1
        self.inflight.append((self.worker._sent, job, tag))
        try:
            self.worker._write(self.worker._encode(self.worker._sent, job))
        except CandidateFault:
            pass  # the server is gone; receive() reports it against the oldest job in flight

    def receive(self) -> tuple[dict, object, list]:
        """The reply to the oldest job in flight: (reply, its tag, [(job, tag) lost with the server])."""
        rid, job, tag = self.inflight[0]
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
                if "lost" in msg:  # the server quit between jobs: nobody's fault, run them all again
                    pending = [(j, t) for _, j, t in self.inflight]
                    self.inflight.clear()
                    self.worker.close()
                    self.worker = None
                    self.restarts_clean += 1
                    if self.restarts_clean > 100:
                        raise SandboxUnavailable(f"fork server keeps failing to clean up: {msg['lost']}")
                    for j, t in pending:
                        self.submit(j, t)
                    return self.receive()
        except CandidateFault as fault:  # the server itself died or hung while running this job
            lost = [(j, t) for _, j, t in list(self.inflight)[1:]]
            self.inflight.clear()
            self.worker.close()
            self.worker = None
            return ({"fault": fault.check, "detail": f"{fault.detail} (the fork server was lost; restarted)",
                     "output": ""}, tag, lost)

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def job_for(task: Task, source: str, tests: list[tuple]) -> dict:
    return {"source": source, "file": task.candidate_file, "entry": task.entry_point,
            "tests": [wire_args(args) for args in tests], "timeout": float(task.limits.wall),
            "memory_mb": task.limits.memory_mb, "fsize_mb": task.limits.fsize_mb}


@dataclass
class _Item:
    index: int
    task: Task
    source: str


def _static_grade(task: Task, source: str, opts, cfg: SandboxConfig) -> Grade | None:
    """The grades decided before anything runs (as in loop.grading.grade)."""
    from loop.grading.grade import _squash, _static

    if task.language != "python":
        raise ValueError(f"task '{task.name}': the fork server grades Python tasks only")
    if source is None or not source.strip():
        return _static(task, source, opts, cfg, V.NO_CODE, "the reply held no code")
    if task.baseline is not None and _squash(source) == _squash(task.baseline):
        return _static(task, source, opts, cfg, V.NO_CHANGE, "the candidate is identical to the baseline")
    return None


def _candidate_job(task: Task, source: str, suite: str) -> dict:
    return job_for(task, source, [g.args for g in task.goldens] + [t.args for t in task.selected(suite)])


def _baseline_results(task: Task, suite: str, reply: dict) -> list:
    n = len(task.selected(suite))
    return reply.get("results") or [{"raised": "the baseline failed: " + str(reply.get("detail", reply.get("build_error", "?")))[:200]}] * n


def _finish(task: Task, source: str, reply: dict, base_results: list | None, suite: str, seed: int,
            cfg: SandboxConfig, duration: float) -> Grade:
    from loop.grading.grade import Options, _static, sha256

    opts = Options(suite=suite, seed=seed, trials=0, k=1)
    if "build_error" in reply:
        return _static(task, source, opts, cfg, V.BUILD, reply["build_error"])
    tests = task.selected(suite)
    checks: list[Check] = []
    values: list = []
    results = reply.get("results")
    if results is None:
        checks.append(Check(reply["fault"], "fault", False, reply.get("detail", "")))
    else:
        for g, msg in zip(task.goldens, results):
            ok, value = outcome(msg)
            values.append(msg.get("ok", {"raised": msg.get("raised")}))
            passed, detail = golden_matches(task, ok, value, g.expected)
            checks.append(Check(f"golden:{g.case}", "golden", passed, detail, expected=g.expected, actual=value))
        for i, (t, msg) in enumerate(zip(tests, results[len(task.goldens):])):
            if "resource" in msg:
                checks.append(Check(V.RESOURCE, "fault", False, msg["resource"]))
                break
            ok, value = outcome(msg)
            values.append(msg.get("ok", {"raised": msg.get("raised")}))
            passed = ok and same_value(value, t.expected)
            base_out = None
            if base_results is not None:
                bok, bvalue = outcome(base_results[i])
                base_out = V.PASS if bok and same_value(bvalue, t.expected) else V.FAIL
            cand_out = V.PASS if passed else V.FAIL
            checks.append(Check(
                f"test:{t.name}", "test", passed,
                "" if passed else f"expected {json_repr(enc(t.expected))}, got {json_repr(enc(value))}",
                test_kind=t.kind, baseline=base_out, candidate=cand_out,
                transition=transition(base_out, cand_out), expected=t.expected, actual=value))
    out = reply.get("output", "").encode()
    attempt = Attempt(0, V.PASS, None, None, digest(values, out, b""), round(duration, 4), seed, clean_env(0), checks)
    attempts = [attempt]
    unstable = triage.settle(attempts)
    verdict = triage.verdict(attempts)
    grade_checks = triage.summarize_tests(attempts, unstable)
    grade_checks += [c for c in checks if c.kind != "test" and not c.passed]
    return Grade(task.name, verdict, verdict in V.GREEN, 1, seed, suite, sha256(source), cfg.enabled,
                 attempts, grade_checks, [])


DEPTH = 2  # jobs queued per server: the next one is waiting while the host reads a reply


def grade_batch(items: Iterable[tuple[Task, str]], cfg: SandboxConfig, *, suite: str = "full", seed: int = 1,
                servers: int = 2) -> list[Grade]:
    """Grade each (task, source) with k=1, goldens and named tests only; one Grade per item, in order.

    `servers` fork servers work in parallel (one thread each, started at once); each grades one candidate
    at a time. `items` may be a generator: grading starts while the caller is still loading tasks.
    """
    from loop.grading.grade import Options

    work: queue.Queue[_Item | None] = queue.Queue()
    results: dict[int, Grade] = {}
    errors: list[BaseException] = []
    baselines: dict = {}
    lock = threading.Lock()

    def infra(item: _Item, detail: str) -> Grade:
        from loop.grading.grade import Options, _static

        return _static(item.task, item.source, Options(suite=suite, seed=seed, trials=0, k=1), cfg,
                       V.INFRA_UNKNOWN, detail, V.INFRA_UNKNOWN)

    def drive() -> None:
        server = ForkServer(cfg)
        waiting: dict[int, list] = {}  # item index -> [baseline results or None, started]
        backlog: deque = deque()       # (job, tag) to (re)submit before taking new items
        done = False
        try:
            try:
                server.worker = server._start()
            except SandboxUnavailable:
                pass  # reported per item below
            while True:
                while len(server.inflight) < DEPTH and (backlog or not done):
                    if backlog:
                        job, tag = backlog.popleft()
                    else:
                        try:
                            item = work.get() if not server.inflight else work.get_nowait()
                        except queue.Empty:
                            break
                        if item is None:
                            done = True
                            break
                        opts_static = _static_grade(item.task, item.source, Options(suite=suite, seed=seed, trials=0, k=1), cfg)
                        if opts_static is not None:
                            results[item.index] = opts_static
                            continue
                        key = (str(item.task.path), suite)
                        base = None
                        if item.task.baseline is not None:
                            with lock:
                                base = baselines.get(key)
                            if base is None:
                                backlog.append((job_for(item.task, item.task.baseline,
                                                        [t.args for t in item.task.selected(suite)]), ("baseline", item)))
                        waiting[item.index] = [base, 0.0]
                        backlog.append((_candidate_job(item.task, item.source, suite), ("candidate", item)))
                        continue
                    try:
                        if tag[0] == "candidate":
                            waiting[tag[1].index][1] = time.monotonic()
                        server.submit(job, tag)
                    except SandboxUnavailable as exc:
                        if tag[0] == "candidate":
                            results[tag[1].index] = infra(tag[1], str(exc))
                        else:
                            waiting[tag[1].index][0] = _baseline_results(tag[1].task, suite, {"detail": str(exc)})
                if not server.inflight:
                    if done and not backlog:
                        return
                    continue
                reply, (role, item), lost = server.receive()
                backlog.extendleft(reversed(lost))
                if role == "baseline":
                    base = _baseline_results(item.task, suite, reply)
                    with lock:
                        baselines[(str(item.task.path), suite)] = base
                    waiting[item.index][0] = base
                    continue
                base, started = waiting.pop(item.index)
                results[item.index] = _finish(item.task, item.source, reply, base, suite, seed, cfg,
                                              time.monotonic() - started)
        except BaseException as exc:  # surfaced below, never swallowed
            errors.append(exc)
        finally:
            server.close()

    threads = [threading.Thread(target=drive, daemon=True) for _ in range(max(1, servers))]
    for t in threads:
        t.start()
    n = 0
    try:
        for n, (task, source) in enumerate(items, 1):
            work.put(_Item(n - 1, task, source))
    finally:
        for _ in threads:
            work.put(None)
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    return [results[i] for i in range(n)]
