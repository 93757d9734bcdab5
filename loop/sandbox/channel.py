"""A channel out of the sandbox that only loop can read: a FIFO in a folder of loop's own, bound read-only into the
sandbox, writable and unreadable for every uid; loop drains it into a host file while the run goes.

Why a FIFO and not a file in the writable /out (red team, round ten): code in the sandbox could read a file there
and rewrite what the tests had sent. A byte written to the FIFO leaves the sandbox at once: nothing inside can read,
reorder or take it back. Nothing inside can open the FIFO for reading either: its mode grants no read to anyone (the
sandbox's uid is another one when loop runs as root, and loop's own otherwise), the read-only bind refuses chmod,
unlink and rename, bubblewrap drops every capability (so no CAP_DAC_OVERRIDE) and, where it can, forbids a nested
user namespace (--disable-userns), in which the same uid would get that capability back over its own files.
"""

from __future__ import annotations

import os
import select
import threading
from pathlib import Path

from loop.errors import SandboxUnavailable

PIPE_BUF = 4096  # POSIX: a write of at most this many bytes to a pipe is never interleaved with another writer's
PIECE = 1800  # bytes of a long line per piece, sent as hex in a frame of at most PIPE_BUF bytes (loop's seal helpers)
MOUNT = "/loopchannel"  # where the FIFO's folder is bound read-only inside the sandbox


class Channel:
    """The FIFO `folder/name` (the folder is made here, and bound at MOUNT), drained while open into `drained`:
    its first `cap` + 1 bytes are kept (so a reader of `drained` capped at `cap` sees it was over), the rest read
    and dropped, so a writer never waits on loop. Use as a context manager around the run."""

    def __init__(self, folder: Path, name: str, drained: Path, cap: int):
        folder.mkdir(mode=0o755)
        os.chmod(folder, 0o755)  # the sandbox's uid only needs to reach the FIFO
        self.fifo, self.drained, self.cap = folder / name, drained, cap
        os.mkfifo(self.fifo, 0o600)  # loop's until __enter__ has opened the read end
        self._read = self._write = self._out = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def inside(self, sandboxed: bool) -> str:
        """The FIFO's path as the test processes see it."""
        return f"{MOUNT}/{self.fifo.name}" if sandboxed else str(self.fifo)

    def binds(self, sandboxed: bool) -> dict[str, str]:
        """The read-only bind for the sandbox (none without it: the processes use the host path)."""
        return {MOUNT: str(self.fifo.parent)} if sandboxed else {}

    def __enter__(self) -> Channel:
        # The read end first (a non-blocking open needs no writer), then loop's own write end, held until the run is
        # over, so the reader never sees end-of-file while test processes come and go, and a writer's open (which
        # waits for a reader) never waits. Both close on exec: no child inherits them.
        self._read = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        os.chmod(self.fifo, 0o222)  # write for all, read for none, loop's uid included (the sandbox's, unprivileged)
        self._write = os.open(self.fifo, os.O_WRONLY | os.O_CLOEXEC)
        self._out = os.open(self.drained, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        self._thread = threading.Thread(target=self._drain, name="loop-channel", daemon=True)
        self._thread.start()
        return self

    def _drain(self) -> None:
        kept = 0
        poll = select.poll()  # not select(): a descriptor above 1023 is fine
        poll.register(self._read, select.POLLIN)
        try:
            while True:
                if not poll.poll(100):
                    if self._stop.is_set():  # loop's write end is closed and nothing more came: every writer is gone
                        return
                    continue
                try:
                    chunk = os.read(self._read, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    return  # end of file: loop's write end and every writer's are closed
                if kept <= self.cap:
                    part = chunk[:self.cap + 1 - kept]
                    kept += len(part)
                    while part:
                        part = part[os.write(self._out, part):]
        except BaseException as exc:  # noqa: BLE001 - reported by __exit__; the read end closes below
            self._error = exc
        finally:
            # A dead reader must not leave a writer waiting on a full pipe: with no read end left, its write fails
            # (EPIPE), the helper fails its test, and the run ends.
            os.close(self._read)
            self._read = -1

    def __exit__(self, *exc) -> None:
        os.close(self._write)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        os.close(self._out)
        if self._error is not None and exc[0] is None:
            raise SandboxUnavailable(f"loop could not drain its seal channel ({self._error!r})") from self._error

