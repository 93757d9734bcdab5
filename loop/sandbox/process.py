"""Start a sandboxed process and wait for it: rlimits, the wall-clock deadline, output capped while it runs,
the signal that ended it as a fault; and the scratch folders its files are staged in.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from loop import verdicts as V
from loop.errors import CandidateFault, SandboxUnavailable
from loop.sandbox.bwrap import check_bwrap, command, sandbox_uid
from loop.sandbox.limits import Limits, SandboxConfig
from loop.sandbox.seccomp import seccomp_fd


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


def spawn(cfg: SandboxConfig, cmd: list[str], env: dict[str, str], limits: Limits,
          address_space: bool) -> tuple[list[str], dict]:
    """The argv and Popen keywords that start `cmd` (bubblewrap's command line): a session of its own; when loop
    is root, dropped to an unprivileged uid first (rlimits such as RLIMIT_NPROC do not bind root) by setpriv;
    then the rlimits set by prlimit, so that bubblewrap and its pid 1 run under them too (red team round
    fourteen: a pid 1 taken over by code under test and left without them outlived its sandbox). Not Popen's
    user= or a preexec_fn: either makes Popen fork() loop's whole address space where it would vfork() (about
    3-6 ms a sandbox from a grading process, measured: two per repository grade). bubblewrap's
    --die-with-parent ends the sandbox if loop dies (--no-sandbox: setpriv's --pdeathsig). bwrap's own environment must be clean too: --clearenv only
    cleans the command's, and bwrap stays pid 1 of the sandbox, where the candidate can read it at
    /proc/1/environ."""
    kw: dict = {"start_new_session": True, "close_fds": True, "env": dict(env)}
    cmd = [_PRLIMIT, *(f"--{_PRLIMIT_NAMES[res]}={int(value)}:{int(value)}"
                       for res, value in limits.rlimits(address_space=address_space)), "--", *cmd]
    if cfg.enabled and os.geteuid() == 0:
        uid = sandbox_uid(cfg)
        cmd = [_SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--pdeathsig=KILL", "--", *cmd]
    elif not cfg.enabled:  # no bubblewrap to die with loop: the command itself does
        cmd = [_SETPRIV, "--pdeathsig=KILL", "--", *cmd]
    return cmd, kw


_SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"  # util-linux
_PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"  # util-linux
_PRLIMIT_NAMES = {resource.RLIMIT_CPU: "cpu", resource.RLIMIT_FSIZE: "fsize", resource.RLIMIT_CORE: "core",
                  resource.RLIMIT_NOFILE: "nofile", resource.RLIMIT_AS: "as"}


def info_pipe(cfg: SandboxConfig) -> tuple[int, int] | None:
    """A pipe for bubblewrap's --info-fd (the host pid of the sandbox's pid 1), None without a sandbox."""
    return os.pipe() if cfg.enabled else None


def track_init(proc: subprocess.Popen, info: int | None) -> None:
    """Keep a pidfd of the sandbox's pid 1 on `proc` (bubblewrap writes its host pid to --info-fd once it has
    started it), so that end_init can kill it: code under test can take pid 1 over (red team round fourteen:
    process_vm_writev into bubblewrap's init made it exec a process that cleared its parent-death signal), and
    killing bubblewrap alone then leaves it, and its pid namespace, running. A pidfd names that process only,
    whatever pid is reused later. Closes `info`."""
    proc.loop_init = None
    if info is None:
        return
    data = b""
    try:
        while not data.rstrip().endswith(b"}"):
            chunk = os.read(info, 4096)  # bubblewrap writes it, or exits: never a long wait
            if not chunk:
                break
            data += chunk
        proc.loop_init = os.pidfd_open(json.loads(data)["child-pid"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # no sandbox started, or it already ended
    finally:
        os.close(info)


def end_init(proc: subprocess.Popen) -> None:
    """SIGKILL the sandbox's pid 1 (see track_init), which ends every process of its pid namespace."""
    init = getattr(proc, "loop_init", None)
    if init is None:
        return
    proc.loop_init = None
    try:
        signal.pidfd_send_signal(init, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # already gone
    finally:
        os.close(init)


def kill(proc: subprocess.Popen) -> None:
    end_init(proc)
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
class Output:
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
    return start(cfg, argv, limits=limits, env=env, ro=ro, rw=rw, address_space=address_space, cwd=cwd).wait()


@dataclass
class Started:
    """A sandboxed command on its way: `wait` reads its output under the output cap and the wall-clock limit,
    counted from `since` (a command started ahead of its input counts from when the input went in)."""
    proc: subprocess.Popen
    hello: int
    limits: Limits
    since: float
    info: int | None  # bubblewrap's --info-fd, read by track_init once the command is wanted (wait, cancel): bwrap
    # writes it once its pid 1 is forked, which a command started ahead of its input need not wait for

    def track(self) -> None:
        """track_init, once (it closes `info`)."""
        if not hasattr(self.proc, "loop_init"):
            track_init(self.proc, self.info)

    def wait(self, since: float | None = None) -> RunResult:
        since = self.since if since is None else since
        self.track()
        out, err = Output(self.limits.output_bytes), Output(self.limits.output_bytes)
        try:
            fault = _pump(self.proc, {self.proc.stdout: out, self.proc.stderr: err}, since + self.limits.wall)
        finally:
            end_init(self.proc)
        os.set_blocking(self.hello, False)
        try:
            hello = os.read(self.hello, 16)
        except BlockingIOError:
            hello = b""
        os.close(self.hello)
        if not hello.startswith(b"hello"):
            detail = err.data.decode(errors="replace").strip()[-500:]
            raise SandboxUnavailable(f"sandbox did not start: {detail or 'no hello from inside it'}")
        if fault is None:
            fault = signal_fault(self.proc.returncode)
        return RunResult(self.proc.returncode, bytes(out.data), bytes(err.data), time.monotonic() - since, fault)

    def cancel(self) -> None:
        """The command is not wanted after all: the sandbox killed, nothing read."""
        self.track()
        kill(self.proc)
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()
        os.close(self.hello)


def start(
    cfg: SandboxConfig,
    argv: list[str],
    *,
    limits: Limits,
    env: dict[str, str],
    ro: dict[str, str] | None = None,
    rw: dict[str, str] | None = None,
    address_space: bool = True,
    cwd: str = "/tmp",
    pass_fds: tuple[int, ...] = (),
) -> Started:
    """Start one sandboxed command (see run); `pass_fds` reach it open, and are closed here, whatever happens."""
    try:
        check_bwrap(cfg)
    except SandboxUnavailable:
        for fd in pass_fds:
            os.close(fd)
        raise
    r, w = os.pipe()
    filt, info = seccomp_fd(cfg), info_pipe(cfg)
    passed = [w, *pass_fds] + ([filt] if filt is not None else []) + ([info[1]] if info else [])
    cmd, kw = spawn(cfg, command(cfg, hello_first(argv, w, limits.nproc, keep=False), ro=ro, rw=rw, limits=limits,
                                 env=env, cwd=cwd, seccomp=filt, info=info and info[1]), env, limits, address_space)
    since = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                pass_fds=passed, **kw)
    except OSError as exc:
        os.close(r)
        if info:
            os.close(info[0])
        raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc
    finally:
        for fd in passed:
            os.close(fd)
    return Started(proc, r, limits, since, info and info[0])


def _pump(proc: subprocess.Popen, sinks: dict, deadline: float) -> CandidateFault | None:
    sel = selectors.DefaultSelector()
    for f in sinks:
        os.set_blocking(f.fileno(), False)
        sel.register(f, selectors.EVENT_READ)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                kill(proc)
                return CandidateFault(V.TIMEOUT, "exceeded the wall-clock limit")
            for key, _ in sel.select(min(left, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                sink = sinks[key.fileobj]
                sink.feed(chunk)
                if sink.over:
                    kill(proc)
                    return CandidateFault(V.RESOURCE, f"output exceeded {sink.cap} bytes")
        left = max(deadline - time.monotonic(), 0.01)
        try:
            proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            kill(proc)
            return CandidateFault(V.TIMEOUT, "exceeded the wall-clock limit")
        return None
    finally:
        sel.close()
        kill(proc)


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


_SCRATCH: set[Path] = set()


@atexit.register
def _cleanup() -> None:
    for path in list(_SCRATCH):
        shutil.rmtree(path, ignore_errors=True)


def scratch(prefix: str) -> Path:
    """A scratch folder (see make_scratch) removed when this process exits."""
    path = make_scratch(prefix)
    _SCRATCH.add(path)
    return path


def remove_scratch(path: Path) -> None:
    """A scratch folder done with before exit: removed now."""
    shutil.rmtree(path, ignore_errors=True)
    _SCRATCH.discard(path)
