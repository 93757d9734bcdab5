"""The fork server's own program: runs inside the sandbox, forks a child per candidate job.

Started by path (staged beside worker.py and codec.py, see ForkServer in loop.kinds.function.fork) with
`python -s -S -P -B`; standard library only. The parent side and the isolation it keeps between candidates
are described in loop.kinds.function.fork and the threat model. One module on purpose: it is a program staged into
the sandbox by path, beside worker.py and codec.py only.
"""

import json
import os
import resource
import select
import signal
import sys
import time

if __package__:  # imported on the host (a reader, a linter, a test): nothing runs
    from . import worker as W
else:  # run by path in the sandbox: the worker and the codec are staged beside this file
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import worker as W
# Paid once per server, not once per candidate: what HumanEval-style code imports most. Kept small on
# purpose: every page the server maps is paid again by each fork and each child's exit (shutil, hashlib
# and traceback cost more that way than the few candidates that import them pay themselves).
import collections, functools, itertools, math, re, string, heapq, bisect, random, typing, copy  # noqa: E401,F401

SWEEP = False
KEEP = frozenset()  # the server and its ancestors (_ancestors at start): every other process is a job's
FOLDER = "/tmp/job"
NUL = None  # /dev/null, opened by main(): each child's stdin
STATE = None  # _state() at start
SWEEP_BUDGET = 1.0  # seconds; a mess that takes longer to clear costs a fresh sandbox instead
STAGED = 64  # entries the job folder may hold and still be cleared in place
# A child that still runs threads of its own after its results gets W.LINGER to end, as a fresh sandbox's
# worker does when its input closes: output they write meanwhile counts against the cap on both paths.
LINGER = W.LINGER
# A job with a CPU limit of its own gets a wall clock too, for a candidate that sleeps. One that has used at least
# WORKING of each wall-clock second when that clock runs out is at work on a loaded machine (a sleeper uses next to
# none): its wall clock starts again, within the job's "patience" (seconds in all), so its CPU limit decides and
# the load does not fail it.
WORKING = 0.05
STARVED = 5  # an EvalPlus numbers input (or its part's total): wall clocks of its limit it may have while at work
CPU_EVERY = 0.02  # ... whose CPU at an input's start is read at most this often (/proc): an input's CPU is over-
#                   counted by at most the earlier inputs' in that time, which errs towards its timeout


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


_TICK = os.sysconf("SC_CLK_TCK")


def _job_cpu(pid, reaped):
    """Seconds of CPU the job has used, all its processes together: RLIMIT_CPU counts each process alone, so
    a candidate that does its work in a fork()ed child would start that child from zero. In the sandbox every
    process but the server's ancestors is the job's (the sweep clears them between jobs); each live one counts
    with the children it reaped (utime, stime, cutime, cstime), and what the server reaped since `reaped`
    (RUSAGE_CHILDREN) counts too: orphans come to the server (a child subreaper: main), never to bwrap.
    Unsandboxed, the job's own child alone. A child reaped while this reads may count twice for a moment:
    the caller acts on two readings in a row."""
    pids = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in KEEP] if SWEEP else [pid]
    ticks = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as fh:
                ticks += sum(map(int, fh.read().rsplit(")", 1)[1].split()[11:15]))
        except (OSError, ValueError):
            pass
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ticks / _TICK + usage.ru_utime + usage.ru_stime - reaped


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _enter(job, w, log, err):
    """A fresh child's set-up: its own session, the job folder, its output files, the task's rlimits."""
    os.setsid()
    os.chdir(FOLDER)
    os.dup2(NUL, 0)
    os.dup2(log, 1)
    os.dup2(err, 2)
    W.close_all_but(0, 1, 2, w)  # not the job channel, not the server's result channel
    random.seed()  # each candidate's checks draw their own random inputs, as in a fresh process
    cpu = _cpu_limit(job)
    # CPU: SIGXCPU at the limit (a timeout), SIGKILL a second later for a process that ignores it; the job's
    # processes together are held to it by the server (_job_cpu)
    for res, value, hard in ((resource.RLIMIT_CPU, cpu, cpu + 1), (resource.RLIMIT_AS, job["memory_mb"] << 20, None),
                             (resource.RLIMIT_FSIZE, job["fsize_mb"] << 20, None)):
        try:
            resource.setrlimit(res, (value, hard or value))
        except (ValueError, OSError):
            pass
    return W.sender(w)


def _cpu_limit(job):
    return job.get("cpu") or int(job["timeout"]) + 1  # a job's own CPU limit (seconds), else its wall clock's


def _child(job, w, log, err, path):
    send = _enter(job, w, log, err)
    try:
        if any(isinstance(args, dict) for args in job["tests"]):
            # check(candidate) tests decide the verdict here: the candidate gets a process of its own
            proxy, error = W.split(path, job["entry"], job["source"])
            if error is None:
                send({"results": W.answer_all(proxy, job["tests"], job["entry"])})
        else:
            fn, error = W.load(path, job["entry"], job["source"])  # exec, not importlib: no lazy imports
            if error is None:
                n = job.get("common", len(job["tests"]))
                seen = []  # every call's arguments: a change after the call returned shows in its reply
                results = [W.call(fn, args, seen) for args in job["tests"][:n]]
                marks = _marks()  # where the part every repeat runs ended, in the output files
                results += [W.call(fn, args, seen) for args in job["tests"][n:]]
                W.fold_late(seen)
                send({"results": results, "marks": marks})
        if error is not None:
            send({"build_error": error})
    except W.Lost:
        _end_as_the_candidate()  # its process stopped answering the checks
    time.sleep(LINGER)  # the server kills us at once unless other threads run (it counts them, not we)
    os._exit(0)


def _end_as_the_candidate():
    """The candidate's own process (check-form tests) is gone: end as it ended, so the server reports its CPU
    limit as a timeout and a kill as a resource fault, as for a candidate in this process; else a crash."""
    end = time.monotonic() + 0.2
    while time.monotonic() < end:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                signal.signal(sig, signal.SIG_DFL)  # SIGXFSZ: Python ignores it
            except (ValueError, OSError):
                pass
            os.kill(os.getpid(), sig)
            time.sleep(0.1)
        if pid:
            break
        time.sleep(0.002)
    os._exit(1)


def _marks():
    """The output files' sizes so far (Python's buffers flushed first): [stdout, stderr], or None."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    try:
        return [os.lseek(1, 0, os.SEEK_CUR), os.lseek(2, 0, os.SEEK_CUR)]
    except OSError:
        return None


def _stream_child(job, w, log, err, path, start):
    """The trusted reference, one reply line per input (from `start` on), each with its own time."""
    send = _enter(job, w, log, err)
    fn, error = W.load(path, job["entry"], job["source"])
    if error is not None:
        send({"build_error": error})
        os._exit(0)
    send({"ready": 1})
    for args in job["tests"][start:]:
        began = time.perf_counter()
        reply = W.call(fn, args)
        reply["secs"] = time.perf_counter() - began
        send(reply)
    os._exit(0)


def _spawn(target, job, *extra):
    """Stage the job's source and output files, fork a child running target; (pid, result pipe, path)."""
    os.makedirs(FOLDER, exist_ok=True)
    path = os.path.join(FOLDER, os.path.basename(job["file"]))
    with open(path, "wb") as fh:
        fh.write(job["source"].encode("utf-8", "surrogatepass"))
    log = os.open(FOLDER + "/.output", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(FOLDER + "/.errors", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            target(job, w, log, err, path, *extra)
        finally:
            os._exit(70)
    os.close(w)
    os.close(log)
    os.close(err)
    return pid, r


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _starved(spent, used, limit):
    """Whether work that has had `spent` seconds of wall clock and `used` of CPU when its `limit` ran out was
    starved, not slow: at work (WORKING of each second at least), short of its limit in CPU, and within
    STARVED times the limit of wall clock."""
    return WORKING * spent <= used < limit and spent < STARVED * limit


def _run_reference(job):
    """A reference job: every input answered within its job["limits"] entry (else job["limit"]) seconds (the
    child's load within the task's wall clock), as a restarting worker in the parent would: an input that
    runs out of time or takes the child down is answered {"timeout"} or {"crash"}, and a fresh child goes
    on after it. In a job with a "total" (EvalPlus's numbers: evalplus's limits, wall clock on a machine it
    has to itself), an input still at work when its seconds are up, having had less CPU than them (a loaded
    machine starved it: loop's own grades beside it), gets the rest of them as CPU (_starved), and so does the
    total: a limit means on a busy machine what it means on an idle one (an input that sleeps still has its
    wall clock). Other jobs keep their wall clocks: which inputs a reference keeps, and a named test's
    20 s, are what they were."""
    results = []
    n = len(job["tests"])
    # EvalPlus's numbers (loop.datasets.evalplus.numbers): "fast" stops at the first input that does not
    # return, "total" bounds the whole job's seconds, loading included, as evalplus bounds a part's process
    start, total = time.monotonic(), job.get("total", math.inf)
    end, earlier = start + total, 0.0  # earlier: the CPU of the job's children gone before this one
    while len(results) < n and not (job.get("fast") and results and "ok" not in results[-1]):
        if time.monotonic() >= end:
            results.append({"timeout": 1})
            break
        reaped = _children_cpu()
        pid, r = _spawn(_stream_child, job, len(results))
        buf, deadline, ready, read_at = b"", min(end, time.monotonic() + job["wall"]), False, -math.inf
        try:
            while len(results) < n and not (job.get("fast") and results and "ok" not in results[-1]):
                if b"\n" not in buf:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        if not ready:
                            return {"fault": "timeout", "detail": "the reference did not load in time"}
                        now, cpu = time.monotonic(), _job_cpu(pid, reaped)
                        if "total" in job and _starved(now - began, cpu - began_cpu, limit) and \
                                (now < end or _starved(now - start, earlier + cpu, total)):
                            end = max(end, now + total - earlier - cpu)
                            deadline = min(end, now + limit - (cpu - began_cpu))
                            continue
                        results.append({"timeout": 1})
                        break
                    got, _, _ = select.select([r], [], [], left)
                    chunk = os.read(r, 1 << 20) if got else b""
                    if got and not chunk:
                        if not ready:
                            return {"fault": "crash", "detail": "the reference exited before it loaded"}
                        results.append({"crash": 1})
                        break
                    buf += chunk
                    if len(buf) > 64 << 20:
                        return {"fault": "resource", "detail": "result message exceeded 64 MiB"}
                    continue
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = {"crash": 1}
                if not ready:
                    if "build_error" in msg:
                        return {"build_error": msg["build_error"]}
                    ready = True
                else:
                    results.append(msg)
                limits = job.get("limits")  # one per input, else job["limit"] for each
                limit = limits[len(results)] if limits and len(results) < n else job["limit"]
                began = time.monotonic()
                if began - read_at >= CPU_EVERY:
                    began_cpu, read_at = _job_cpu(pid, reaped), began
                deadline = min(end, began + limit)
        finally:
            os.close(r)
            _kill(pid)
            earlier += _children_cpu() - reaped
    return {"results": results}


def _run(job):
    # Staged by the server (the child's first writes would each cost it copy-on-write faults).
    reaped = _children_cpu()
    pid, r = _spawn(_child, job)
    deadline = time.monotonic() + job["timeout"]
    buf, status, fault = b"", None, None
    cpu, over, started = _cpu_limit(job), 0, time.monotonic()
    too_much = {"fault": "timeout", "limit": "cpu",
                "detail": "exceeded the %gs CPU limit (the candidate's processes together)" % cpu}
    while True:
        if b"\n" in buf:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            spent = time.monotonic() - started
            if spent < job.get("patience", 0) and _job_cpu(pid, reaped) >= WORKING * spent:
                deadline += job["timeout"]  # still at work: a loaded machine starved it; its CPU limit decides
                continue
            fault = {"fault": "timeout", "limit": "wall", "detail": "exceeded the %gs wall-clock limit" % job["timeout"]}
            break
        ready, _, _ = select.select([r], [], [], min(left, 0.05))
        if not ready:
            over = over + 1 if _job_cpu(pid, reaped) > cpu else 0
            if over == 2:
                fault = too_much
                break
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
    if status is None and got and fault is None and _threads(pid) > 1:
        _await_exit(pid, LINGER + 0.05, reap=False)
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        if not got or fault is not None:
            _, status = os.waitpid(pid, 0)
        else:
            _await_exit(pid, 0.5)  # else the sweep finds it dying and polls /proc until it is gone
    os.close(r)
    if fault is None and _job_cpu(pid, reaped) > cpu and _job_cpu(pid, reaped) > cpu:
        fault = too_much  # the work since the last look: the same work always takes the same CPU time
    output, errors = _read(".output"), _read(".errors")
    cap = job.get("output_bytes", 1 << 20)
    if fault is None and max(_size(".output"), _size(".errors")) > cap:
        fault = {"fault": "resource", "detail": "output exceeded %d bytes" % cap}
    if fault is None:
        line = buf.split(b"\n", 1)[0] if b"\n" in buf else b""
        try:
            msg = json.loads(line) if line else None
        except Exception:  # deep nesting, 5000-digit ints, bad UTF-8: the candidate wrote it
            msg = None
        if isinstance(msg, dict) and isinstance(msg.get("results"), list):
            marks = msg.get("marks")
            if (isinstance(marks, list) and len(marks) == 2 and all(type(m) is int and m >= 0 for m in marks)
                    and "common" in job):  # the output of the part every repeat runs, alone
                return {"results": msg["results"], "output": _read(".output", marks[0]),
                        "errors": _read(".errors", marks[1]), "common_output": 1}
            return {"results": msg["results"], "output": output, "errors": errors}
        if isinstance(msg, dict) and isinstance(msg.get("build_error"), str):
            return {"build_error": msg["build_error"], "output": output, "errors": errors}
        if status is None:  # a line that is not a report: the child was killed above
            _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            kind = {signal.SIGXCPU: "timeout", signal.SIGXFSZ: "resource", signal.SIGKILL: "resource"}.get(sig, "crash")
            fault = {"fault": kind, "detail": "killed by %s" % signal.Signals(sig).name}
            if sig == signal.SIGXCPU:
                fault["limit"] = "cpu"
        else:
            fault = {"fault": "crash", "detail": "the candidate exited early (status %d)" % os.WEXITSTATUS(status)}
    fault["output"], fault["errors"] = output, errors
    return fault


def _await_exit(pid, timeout, reap=True):
    """Wait for our own child to be gone (a pidfd, no polling), at most `timeout`, and reap it (what is still
    there then is the sweep's); reap=False leaves it a zombie, for a kill that follows."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return
    try:
        if select.select([fd], [], [], timeout)[0] and reap:
            os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    finally:
        os.close(fd)


def _threads(pid):
    """Threads the child runs, as /proc (not the child, which may lie) counts them."""
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return 0


def _size(name):
    try:
        return os.stat(os.path.join(FOLDER, name)).st_size
    except OSError:
        return 0


def _read(name, limit=65536):
    try:
        with open(os.path.join(FOLDER, name), "rb") as fh:
            return fh.read(min(limit, 65536)).decode("utf-8", "replace")
    except OSError:
        return ""


def main():
    out_fd, in_fd = int(sys.argv[1]), int(sys.argv[2])
    global SWEEP, FOLDER, STATE, NUL, KEEP
    NUL = os.open("/dev/null", os.O_RDONLY)
    SWEEP = _in_sandbox()
    if not SWEEP:  # unsandboxed servers must not share a job folder in the host's /tmp
        import tempfile
        FOLDER = os.path.join(tempfile.mkdtemp(prefix="loop-forkserver-"), "job")
    keep = KEEP = frozenset(_ancestors())
    STATE = _state()

    send = W.sender(out_fd)
    try:
        W.nodump()  # children inherit it: no /proc/<pid>/fd, mem or ptrace of the server or of each other
        W.subreaper()  # a job's orphans are the server's: their CPU time is the job's (_job_cpu)
    except Exception:
        send({"lost": "the fork server could not make itself undumpable and a subreaper (prctl)"})
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
        reply = _run_reference(job) if "limit" in job else _run(job)
        reply["id"] = job["id"]
        send(reply)
        # Overlaps with the parent's work on the reply; the next job is read only after it.
        if not _sweep(keep):
            send({"lost": "the sandbox was not clean after the last candidate"})
            break
    if not SWEEP:
        import shutil
        shutil.rmtree(os.path.dirname(FOLDER), ignore_errors=True)


if __name__ == "__main__":
    main()
