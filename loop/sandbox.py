"""Start untrusted code: bubblewrap + rlimits + wall-clock timeouts + capped output.

The one place candidate, baseline and reference code is started; grading asks it for a
`Worker` (a long-lived process answering calls over a private pipe) or a one-shot `run`.
Longer than most modules on purpose: it is the trust boundary (bwrap arguments, seccomp, rlimits,
uids, pipes and output caps), kept in one file so that it is read and reviewed as one.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import json
import os
import resource
import selectors
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from loop import verdicts as V

GRACE = 1.0  # seconds granted past the wall limit before we kill


@dataclass(frozen=True)
class Limits:
    """Per-process limits; `wall` bounds a whole attempt, the rest are rlimits."""

    wall: float = 10.0
    memory_mb: int = 1024
    fsize_mb: int = 64
    nproc: int = 64
    output_bytes: int = 1 << 20
    tmpfs_mb: int = 64
    build_wall: float = 60.0  # wall-clock bound of one sandboxed compile (C++ tasks)

    def rlimits(self, *, address_space: bool = True) -> list[tuple[int, int]]:
        """The rlimits set before bubblewrap starts. RLIMIT_NPROC is not among them: it is set inside
        (see hello_first), so each sandbox's user namespace counts its own processes."""
        cpu = int(self.wall) + 2
        out = [
            (resource.RLIMIT_CPU, cpu),
            (resource.RLIMIT_FSIZE, self.fsize_mb << 20),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_NOFILE, 256),
        ]
        if address_space:
            out.append((resource.RLIMIT_AS, self.memory_mb << 20))
        return out


@dataclass(frozen=True)
class SandboxConfig:
    enabled: bool = True
    bwrap: str = "bwrap"
    python: str = "auto"
    uid: int = 1_000_000  # when loop runs as root, sandboxes drop to uids from here (a pool of UID_POOL)

    def interpreter(self) -> str:
        if self.python != "auto":
            return self.python
        for cand in ("/usr/bin/python3", os.path.realpath(sys.executable)):
            if os.path.exists(cand) and _world_readable(cand):
                return cand
        return os.path.realpath(sys.executable)


class SandboxUnavailable(Exception):
    """The sandbox itself could not start: infrastructure trouble, never the candidate's fault."""


class CandidateFault(Exception):
    """The sandboxed process timed out, crashed or hit a resource limit."""

    def __init__(self, check: str, detail: str):
        super().__init__(f"{check}: {detail}")
        self.check = check
        self.detail = detail


def _world_readable(path: str) -> bool:
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        mode = part.stat().st_mode
        need = stat.S_IXOTH if part.is_dir() else stat.S_IROTH
        if not mode & need:
            return False
    return True


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def clean_env(repeat: int = 0) -> dict[str, str]:
    """The pinned environment of every sandboxed process; PYTHONHASHSEED varies per repeat on purpose."""
    return {
        "PATH": "/usr/bin:/bin",
        "LC_ALL": "C",
        "TZ": "UTC",
        "TMPDIR": "/tmp",
        "HOME": "/tmp",
        "PYTHONHASHSEED": str(1000 + repeat * 7919),
    }


def make_scratch(prefix: str = "loop-") -> Path:
    """A host folder the sandbox uid can read (and, for builds, write)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(path, 0o755)
    return path


def stage(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    os.chmod(path, 0o644)
    return path


def _preexec(limits: Limits, address_space: bool):
    def apply():
        os.setsid()
        try:  # if loop dies (even by kill -9), bwrap and with it the whole sandbox die too
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
        for res, value in limits.rlimits(address_space=address_space):
            try:
                resource.setrlimit(res, (value, value))
            except (ValueError, OSError):
                pass

    return apply


def command(
    cfg: SandboxConfig,
    argv: list[str],
    *,
    ro: dict[str, str] | None = None,
    rw: dict[str, str] | None = None,
    limits: Limits,
    env: dict[str, str],
    cwd: str = "/tmp",
    seccomp: int | None = None,
) -> list[str]:
    """The bwrap command line: read-only system, private size-capped /tmp, no network, no $HOME;
    `seccomp` is a descriptor holding the filter (see seccomp_fd)."""
    if not cfg.enabled:
        return _unsandboxed(argv, {**(ro or {}), **(rw or {})})
    # An absolute path: bwrap itself is started with the clean environment (no PATH of ours).
    args = [shutil.which(cfg.bwrap) or cfg.bwrap, *_system_binds()]
    interp = cfg.interpreter()
    if not interp.startswith("/usr/"):
        prefix = str(Path(interp).resolve().parent.parent)
        args += ["--ro-bind", prefix, prefix]
    # The only writable places are size-capped tmpfs mounts (/tmp, /dev/shm) and `rw` binds: the root
    # and /dev, tmpfs mounts of bwrap's own, would otherwise take writes without any cap.
    cap = str(limits.tmpfs_mb << 20)
    args += ["--proc", "/proc", "--dev", "/dev", "--size", cap, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--size", cap, "--tmpfs", "/tmp"]
    for dest, host in (rw or {}).items():
        args += ["--bind", host, dest]
    for dest, host in (ro or {}).items():  # after rw: a read-only file may sit inside a writable tree
        args += ["--ro-bind", host, dest]
    args += ["--remount-ro", "/", "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if _bwrap_can_disable_userns(args[0]):  # no nested user namespace: its own uncapped tmpfs mounts
        args += ["--unshare-user", "--disable-userns"]
    if seccomp is not None:
        args += ["--seccomp", str(seccomp)]
    args += ["--clearenv"]
    for k, v in env.items():
        args += ["--setenv", k, v]
    args += ["--chdir", cwd, "--", *argv]
    return args


@functools.cache
def _bwrap_can_disable_userns(bwrap: str) -> bool:
    """bubblewrap >= 0.8 can forbid nested user namespaces; older ones run without that layer."""
    try:
        out = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--disable-userns" in out.stdout + out.stderr


# State no size cap covers, refused (EPERM) by a seccomp filter: System V shared memory and message
# queues and POSIX message queues outlive every process that used them (and POSIX queues count against
# the uid, across sandboxes); memfd files are written without any mapping RLIMIT_AS would count; extended
# attributes (a default ACL, or `user.*` values that pin kernel memory far past the tmpfs cap) on the
# tmpfs roots would reach the next candidate on a fork server. So are foreign system-call ABIs (i386,
# x32), through which the same calls could be reached under other numbers.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_REFUSED = {  # shmget msgget mq_open memfd_create memfd_secret setxattr lsetxattr fsetxattr setxattrat
    "x86_64": (29, 68, 240, 319, 447, 188, 189, 190, 463),
    "aarch64": (194, 186, 180, 279, 447, 5, 6, 7, 463),
}


def seccomp_program(machine: str | None = None) -> bytes | None:
    """The classic-BPF filter bubblewrap installs (`--seccomp FD`), or None on an architecture we do not know."""
    machine = machine or os.uname().machine
    if machine not in _AUDIT_ARCH:
        return None
    refused = _REFUSED[machine]
    eperm = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    n = len(refused)
    prog = [(ld, 0, 0, 4),  # arch
            (jeq, 0, n + 3, _AUDIT_ARCH[machine]),  # another ABI: refused
            (ld, 0, 0, 0),  # syscall number
            (jge, n + 1, 0, 0x40000000)]  # x32: refused
    prog += [(jeq, n - i, 0, nr) for i, nr in enumerate(refused)]
    prog += [(ret, 0, 0, 0x7FFF0000), (ret, 0, 0, eperm)]  # allow; refuse
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def seccomp_fd(cfg: SandboxConfig) -> int | None:
    """A pipe's read end holding the filter, to pass to bubblewrap (which reads it to the end)."""
    prog = seccomp_program() if cfg.enabled else None
    if prog is None:
        return None
    r, w = os.pipe()
    os.write(w, prog)
    os.close(w)
    return r


UID_POOL = 8192
_uid_counter = itertools.count()


def _sandbox_uid(cfg: SandboxConfig) -> int:
    """A fresh unprivileged uid per sandbox: RLIMIT_NPROC counts per uid, so sharing one would let
    one candidate's fork bomb starve every other sandbox."""
    return cfg.uid + (os.getpid() * 131 + next(_uid_counter)) % UID_POOL


def _unsandboxed(argv: list[str], mounts: dict[str, str]) -> list[str]:
    """--no-sandbox: nothing is mounted, so paths inside the sandbox become the host folders they name."""
    def host(arg: str) -> str:
        for dest, path in mounts.items():
            if arg == dest or arg.startswith(dest + "/"):
                return path + arg[len(dest):]
        return arg

    return [host(a) for a in argv]


def _popen_kwargs(cfg: SandboxConfig, limits: Limits, address_space: bool, env: dict[str, str]) -> dict:
    # bwrap's own environment must be clean too: --clearenv only cleans the command's, and bwrap
    # stays pid 1 of the sandbox, where the candidate can read it at /proc/1/environ.
    kw: dict = {"preexec_fn": _preexec(limits, address_space), "close_fds": True, "env": dict(env)}
    if cfg.enabled and os.geteuid() == 0:
        # rlimits such as RLIMIT_NPROC do not bind root: drop to an unprivileged uid first.
        uid = _sandbox_uid(cfg)
        kw.update(user=uid, group=uid, extra_groups=[])
    return kw


def _check_bwrap(cfg: SandboxConfig) -> None:
    if cfg.enabled and shutil.which(cfg.bwrap) is None:
        raise SandboxUnavailable(f"bubblewrap not found: '{cfg.bwrap}' is not on PATH")


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def signal_fault(returncode: int | None) -> CandidateFault | None:
    """Classify a death by signal (bwrap reports it as 128+signal)."""
    if returncode is None:
        return None
    sig = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    if sig <= 0 or sig >= 65:
        return None
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
    if sig == signal.SIGXCPU:
        return CandidateFault(V.TIMEOUT, f"CPU limit exceeded ({name})")
    if sig == signal.SIGXFSZ:
        return CandidateFault(V.RESOURCE, f"file size limit exceeded ({name})")
    if sig == signal.SIGKILL:
        return CandidateFault(V.RESOURCE, f"killed ({name}), likely by a memory limit")
    return CandidateFault(V.CRASH, f"killed by {name}")


@dataclass
class _Output:
    cap: int
    data: bytearray = field(default_factory=bytearray)
    total: int = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    @property
    def over(self) -> bool:
        return self.total > self.cap


@dataclass(frozen=True)
class RunResult:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    duration: float
    fault: CandidateFault | None


def run(
    cfg: SandboxConfig,
    argv: list[str],
    *,
    limits: Limits,
    env: dict[str, str],
    ro: dict[str, str] | None = None,
    rw: dict[str, str] | None = None,
    address_space: bool = True,
    cwd: str = "/tmp",
) -> RunResult:
    """Run one sandboxed command to completion (builds, sanitizer runs)."""
    _check_bwrap(cfg)
    r, w = os.pipe()
    filt = seccomp_fd(cfg)
    passed = [w] + ([filt] if filt is not None else [])
    cmd = command(cfg, hello_first(argv, w, limits.nproc, keep=False), ro=ro, rw=rw, limits=limits, env=env,
                  cwd=cwd, seccomp=filt)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=passed, **_popen_kwargs(cfg, limits, address_space, env),
        )
    except OSError as exc:
        os.close(r)
        raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc
    finally:
        for fd in passed:
            os.close(fd)
    out, err = _Output(limits.output_bytes), _Output(limits.output_bytes)
    fault = _pump(proc, {proc.stdout: out, proc.stderr: err}, start + limits.wall)
    os.set_blocking(r, False)
    try:
        hello = os.read(r, 16)
    except BlockingIOError:
        hello = b""
    os.close(r)
    if not hello.startswith(b"hello"):
        detail = err.data.decode(errors="replace").strip()[-500:]
        raise SandboxUnavailable(f"sandbox did not start: {detail or 'no hello from inside it'}")
    if fault is None:
        fault = signal_fault(proc.returncode)
    return RunResult(proc.returncode, bytes(out.data), bytes(err.data), time.monotonic() - start, fault)


def _pump(proc: subprocess.Popen, sinks: dict, deadline: float) -> CandidateFault | None:
    sel = selectors.DefaultSelector()
    for f in sinks:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(proc)
                return CandidateFault(V.TIMEOUT, "exceeded the wall-clock limit")
            for key, _ in sel.select(min(left, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                sink = sinks[key.fileobj]
                sink.feed(chunk)
                if sink.over:
                    _kill(proc)
                    return CandidateFault(V.RESOURCE, f"output exceeded {sink.cap} bytes")
        left = max(deadline - time.monotonic(), 0.01)
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return CandidateFault(V.TIMEOUT, "exceeded the wall-clock limit")
        return None
    finally:
        sel.close()
        _kill(proc)


def hello_first(argv: list[str], fd: int, nproc: int, keep: bool = True) -> list[str]:
    """Prefix argv with a trusted shell (bash: dash cannot name fds above 9) that sets RLIMIT_NPROC, writes
    `hello` to fd, then execs argv; with keep=False the command does not inherit fd. A command that kept it
    could reopen the pipe through /proc/self/fd and drain the hello (same uid when loop is not run as root),
    faking a sandbox that never started: infra_unknown.

    RLIMIT_NPROC is set here, inside the sandbox's own user namespace, not before bubblewrap starts: a
    namespace takes its creator's limit as the ceiling for all of that uid's processes on the host, so
    when loop runs as a normal user (one uid for every sandbox) one candidate's fork bomb would starve
    every other sandbox. Set inside, each sandbox has a budget of its own."""
    close = "" if keep else f" {int(fd)}>&-"
    return ["/bin/bash", "-c", f'ulimit -u {int(nproc)} && echo hello >&{fd} && exec "$@"{close}', "bash", *argv]


class Worker:
    """A sandboxed process that answers calls over a private pipe, one JSON line per message.

    The candidate's own stdout/stderr are captured separately (capped) and never parsed, so
    printing something that looks like a harness message changes nothing.
    """

    def __init__(
        self,
        cfg: SandboxConfig,
        argv: list[str],
        *,
        limits: Limits,
        env: dict[str, str],
        ro: dict[str, str] | None = None,
        deadline: float | None = None,
        address_space: bool = True,
        encode=None,
        decode=None,
        private_input: bool = False,
        capture: bool = True,
    ):
        """private_input: requests travel on a pipe passed as `{jobs}`, not stdin. bubblewrap's pid 1 keeps
        its stdio open, and a process in the sandbox may open /proc/1/fd/0 (same uid when loop is not run
        as root): only what arrives on stdin could be read there. capture=False: stdout and stderr are
        /dev/null (the fork server: output shared by many candidates must not count against any one)."""
        _check_bwrap(cfg)
        self._encode = encode or (lambda rid, args: (json.dumps({"id": rid, "args": args}) + "\n").encode())
        self._decode = decode or json.loads
        self.limits = limits
        self.deadline = deadline or (time.monotonic() + limits.wall)
        self.out = _Output(limits.output_bytes)
        self.err = _Output(limits.output_bytes)
        self._buf = b""
        self._sent = 0
        self.dead: CandidateFault | None = None
        r, w = os.pipe()
        passed = [w]
        if private_input:
            jobs_r, jobs_w = os.pipe()
            passed.append(jobs_r)
        argv = [a.replace("{fd}", str(w)).replace("{jobs}", str(passed[-1])) for a in argv]
        filt = seccomp_fd(cfg)
        if filt is not None:
            passed.append(filt)
        cmd = command(cfg, hello_first(argv, w, limits.nproc), ro=ro, limits=limits, env=env, seccomp=filt)
        stdin = subprocess.DEVNULL if private_input else subprocess.PIPE
        stdio = subprocess.PIPE if capture else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=stdin, stdout=stdio, stderr=stdio,
                pass_fds=passed, **_popen_kwargs(cfg, limits, address_space, env),
            )
        except OSError as exc:
            os.close(r)
            if private_input:
                os.close(jobs_w)
            raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc
        finally:
            for fd in passed:
                os.close(fd)
        self._res = r
        self._in = jobs_w if private_input else self.proc.stdin.fileno()
        os.set_blocking(self._in, False)
        # One selector for the worker's life (not one per wait): a grade waits on it many times.
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._res, selectors.EVENT_READ, "res")
        for f, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            if f is not None:
                os.set_blocking(f.fileno(), False)
                self._sel.register(f, selectors.EVENT_READ, sink)
        # A trusted shell says hello inside the finished sandbox before any candidate code runs:
        # without it the sandbox never started, which is infrastructure trouble, not the candidate's.
        try:
            hello = self._next_line()
        except CandidateFault as exc:
            detail = self.err.data.decode(errors="replace").strip()[-500:]
            self.close()
            raise SandboxUnavailable(f"sandbox did not start: {detail or exc.detail}") from exc
        if hello != b"hello":
            self.close()
            raise SandboxUnavailable("sandbox did not start: no hello from inside it")

    def ready(self) -> dict:
        """The worker's report after loading the code: {"ready": 1} or {"build_error": ...}."""
        return self.receive()

    def call(self, args) -> dict:
        """Send one call (already wire-encoded args) and wait for its reply."""
        return self.call_many([args])[0]

    def call_many(self, batch: list) -> list[dict]:
        """Pipeline several calls: one round trip instead of one per call."""
        first = self._send_all(batch)
        replies: dict[int, dict] = {}
        while len(replies) < len(batch):
            msg = self.receive()
            if isinstance(msg.get("id"), int) and first <= msg["id"] <= self._sent:
                replies[msg["id"]] = msg
        return [replies[first + i] for i in range(len(batch))]

    def send(self, args) -> int:
        """Send one request without waiting for its reply (a caller that pipelines matches replies by the
        id returned). Raises CandidateFault if the worker is dead or dies of its limits while we write;
        a worker that merely exited is reported by the receive() that follows."""
        return self._send_all([args])

    def receive(self) -> dict:
        """The next message from the worker, whatever its id; CandidateFault when the worker is dead, dies,
        runs out of time or writes something that is not a message."""
        if self.dead:
            raise self.dead
        return self._next_message()

    def _send_all(self, batch: list) -> int:
        """Write the requests in one go, numbered from the id returned on."""
        if self.dead:
            raise self.dead
        first = self._sent + 1
        self._sent += len(batch)
        self._write(b"".join(self._encode(first + i, args) for i, args in enumerate(batch)))
        return first

    def _write(self, payload: bytes) -> None:
        pending = memoryview(payload)
        while pending and self._in is not None:
            try:
                pending = pending[os.write(self._in, pending):]
            except BlockingIOError:
                # Drain replies while we wait, or a full result pipe would deadlock both sides.
                if "res" in self._select(write=True):
                    try:
                        chunk = os.read(self._res, 1 << 20)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        return  # the process died; the read that follows reports how
                    self._buf += chunk
            except OSError:
                return  # the process died; the read that follows reports how

    def _select(self, write: bool = False) -> list:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self._die(CandidateFault(V.TIMEOUT, f"exceeded the {self.limits.wall:g}s wall-clock limit"))
        if write:
            self._sel.register(self._in, selectors.EVENT_WRITE, "in")
        try:
            events = self._sel.select(min(left, 1.0))
        finally:
            if write:
                self._sel.unregister(self._in)
        ready = []
        for key, _ in events:
            if key.data == "res" or key.data == "in":
                ready.append(key.data)
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                self._sel.unregister(key.fileobj)
                key.fileobj.close()
                continue
            key.data.feed(chunk)
            if key.data.over:
                self._die(CandidateFault(V.RESOURCE, f"output exceeded {key.data.cap} bytes"))
        return ready

    def _next_message(self) -> dict:
        line = self._next_line()
        try:
            msg = self._decode(line)
        except Exception:  # noqa: BLE001 - any malformed line is the writer's fault, decoded totally
            msg = None
        if not isinstance(msg, dict):
            self._die(CandidateFault(V.CRASH, "the result channel was corrupted"))
        return msg

    def _next_line(self) -> bytes:
        while b"\n" not in self._buf:
            if "res" not in self._select():
                continue
            try:
                chunk = os.read(self._res, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                self._died()
            self._buf += chunk
            if len(self._buf) > 64 << 20:
                self._die(CandidateFault(V.RESOURCE, "result message exceeded 64 MiB"))
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _died(self):
        """The result channel closed: find out how the process ended."""
        try:
            self.proc.wait(timeout=max(0.05, min(2.0, self.deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            pass
        fault = signal_fault(self.proc.returncode)
        if fault is None:
            code = self.proc.returncode
            fault = CandidateFault(V.CRASH, f"the process exited early (status {code})")
        self._die(fault)

    def _die(self, fault: CandidateFault):
        self.dead = fault
        self.close()
        raise fault

    def close(self) -> None:
        if self.proc.poll() is None and not self.dead:
            # A worker whose input ends exits on its own, giving a real exit status; one whose candidate
            # left threads running lingers first (sandbox_worker.linger): its output keeps being counted.
            self._close_input()
            end = time.monotonic() + 0.5
            try:
                while self.proc.poll() is None and time.monotonic() < end and not self.dead:
                    if "res" in self._select() and not os.read(self._res, 1 << 20):
                        break  # the result channel is closed: the process is ending
            except (OSError, CandidateFault):
                pass
        _kill(self.proc)  # always: its process group or pid namespace may still hold daemons
        self._sel.close()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is None or f.closed:
                continue
            try:
                while chunk := os.read(f.fileno(), 65536):
                    sink = self.out if f is self.proc.stdout else self.err
                    sink.feed(chunk)
                    if sink.over:
                        break
            except (BlockingIOError, OSError):
                pass
            f.close()
        self._close_input()
        if self._res is not None:
            try:
                os.close(self._res)
            except OSError:
                pass
            self._res = None

    def _close_input(self) -> None:
        if self._in is None:
            return
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            else:
                os.close(self._in)
        except OSError:
            pass
        self._in = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

