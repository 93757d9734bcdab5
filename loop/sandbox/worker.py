"""A long-lived sandboxed process answering calls over a private pipe (the host side of inside/worker.py's
protocol): the hello, calls with a deadline, output counted against the cap, the linger after a reply.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time

from loop import verdicts as V
from loop.errors import CandidateFault, SandboxUnavailable
from loop.sandbox.bwrap import check_bwrap, command
from loop.sandbox.limits import Limits, SandboxConfig
from loop.sandbox.process import Output, hello_first, info_pipe, kill, signal_fault, spawn, track_init
from loop.sandbox.seccomp import seccomp_fd


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
        check_bwrap(cfg)
        self._encode = encode or (lambda rid, args: (json.dumps({"id": rid, "args": args}) + "\n").encode())
        self._decode = decode or json.loads
        self.limits = limits
        self.deadline = deadline or (time.monotonic() + limits.wall)
        self.out = Output(limits.output_bytes)
        self.err = Output(limits.output_bytes)
        self._buf = b""
        self._sent = 0
        self.dead: CandidateFault | None = None
        r, w = os.pipe()
        passed = [w]
        if private_input:
            jobs_r, jobs_w = os.pipe()
            passed.append(jobs_r)
        argv = [a.replace("{fd}", str(w)).replace("{jobs}", str(passed[-1])) for a in argv]
        filt, info = seccomp_fd(cfg), info_pipe(cfg)
        passed += [fd for fd in (filt, info and info[1]) if fd is not None]
        cmd, kw = spawn(cfg, command(cfg, hello_first(argv, w, limits.nproc), ro=ro, limits=limits, env=env,
                                     seccomp=filt, info=info and info[1]), env, limits, address_space)
        stdin = subprocess.DEVNULL if private_input else subprocess.PIPE
        stdio = subprocess.PIPE if capture else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=stdin, stdout=stdio, stderr=stdio,
                pass_fds=passed, **kw,
            )
        except OSError as exc:
            os.close(r)
            if private_input:
                os.close(jobs_w)
            if info:
                os.close(info[0])
            raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from exc
        finally:
            for fd in passed:
                os.close(fd)
        track_init(self.proc, info and info[0])
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
            # left threads running lingers first (worker.py's linger): its output keeps being counted.
            self._close_input()
            end = time.monotonic() + 0.5
            try:
                while self.proc.poll() is None and time.monotonic() < end and not self.dead:
                    if "res" in self._select() and not os.read(self._res, 1 << 20):
                        break  # the result channel is closed: the process is ending
            except (OSError, CandidateFault):
                pass
        kill(self.proc)  # always: its process group or pid namespace may still hold daemons
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
