"""One solution's replies on many inputs through a fork server (a forked child per call of `run`, in a sandbox
started once): each input within its own time limit, the whole within `total` seconds, stopping at the first
input that does not return. How EvalPlus's numbers run a part (loop.datasets.evalplus.numbers), as evalplus
runs a process per part, without a sandbox start per part."""

from __future__ import annotations

import threading

from loop.kinds.function.fork.server import ForkServer
from loop.sandbox import SandboxConfig

FILE = "solution.py"


class Outputs:
    """Fork servers for `run`, one per calling thread (started on its first call), closed by `close`."""

    def __init__(self, cfg: SandboxConfig, memory_mb: int = 4096, fsize_mb: int = 64):
        self.cfg, self.memory_mb, self.fsize_mb = cfg, memory_mb, fsize_mb
        self._local = threading.local()
        self._servers: list[ForkServer] = []
        self._lock = threading.Lock()

    def run(self, source: str, entry: str, wires: list, limits: list[float], total: float) -> list[dict]:
        """The replies ({"ok": encoded value} when it returned) in order, up to and with the first that did
        not return; within `total` seconds in all, loading included. [] when the solution does not load or
        its child was lost as a whole."""
        if not wires:
            return []
        server = getattr(self._local, "server", None)
        if server is None:
            server = self._local.server = ForkServer(self.cfg, memory_mb=self.memory_mb)
            with self._lock:
                self._servers.append(server)
        job = {"source": source, "file": FILE, "entry": entry, "tests": list(wires), "limit": max(limits),
               "limits": list(limits), "wall": total, "total": total, "fast": 1, "timeout": total,
               "memory_mb": self.memory_mb, "fsize_mb": self.fsize_mb}
        results = server.run(job).get("results")
        return results if isinstance(results, list) else []

    def close(self) -> None:
        with self._lock:
            for server in self._servers:
                server.close()
            self._servers.clear()
