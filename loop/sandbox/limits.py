"""What a sandboxed process may use (Limits), how the sandbox is configured (SandboxConfig), the environment
it sees, and the two ways a start can go wrong: the sandbox is unavailable, or the candidate faulted.
"""

from __future__ import annotations

import functools
import os
import resource
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

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
        return self.python if self.python != "auto" else _auto_interpreter()


@functools.cache  # (asked on the way to every sandbox start)
def _auto_interpreter() -> str:
    for cand in ("/usr/bin/python3", os.path.realpath(sys.executable)):
        if os.path.exists(cand) and world_readable(cand):
            return cand
    return os.path.realpath(sys.executable)


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


def reachable(root: Path) -> None:
    """Create `root` (a cache folder bound into sandboxes) and open the folders down to it that this user owns,
    so the sandbox's uid can traverse to it."""
    root.mkdir(parents=True, exist_ok=True)
    for p in [root, *root.parents]:
        if p == Path(p.anchor) or p.stat().st_uid != os.geteuid():
            break
        os.chmod(p, p.stat().st_mode | 0o755)


def world_readable(path: str) -> bool:
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        mode = part.stat().st_mode
        need = stat.S_IXOTH if part.is_dir() else stat.S_IROTH
        if not mode & need:
            return False
    return True
