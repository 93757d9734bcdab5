"""The bubblewrap command line: what the sandbox mounts (read-only system folders, the staged files),
its uid, no network, and the unsandboxed fallback (--no-sandbox).
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess

from loop.errors import SandboxUnavailable
from loop.sandbox import pythons
from loop.sandbox.limits import Limits, SandboxConfig


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def folders_between(ro: dict[str, str], rw: dict[str, str]) -> dict[str, str]:
    """Each folder between a writable bind and a read-only file inside it, bound onto itself (still writable):
    rename(2) refuses to move a mount point, so code in the sandbox cannot move a protected file's folder aside,
    read-only bind and all, and put a folder of its own in its place (red team, round eight: hidden tests
    rewritten so). (Strings, not pathlib: it runs on the way to every sandbox start.)"""
    out: dict[str, str] = {}
    for dest in ro:
        for top, host in rw.items():
            top = top.rstrip("/")
            if not dest.startswith(top + "/"):
                continue
            parts = dest[len(top) + 1:].split("/")
            for depth in range(1, len(parts)):
                here = os.path.join(host, *parts[:depth])
                if not os.path.isdir(here) or os.path.islink(here):
                    break
                out.setdefault("/".join([top, *parts[:depth]]), here)
    return dict(sorted(out.items(), key=lambda kv: kv[0].count("/")))


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
    info: int | None = None,
) -> list[str]:
    """The bwrap command line: read-only system, private size-capped /tmp, no network, no $HOME;
    `seccomp` is a descriptor holding the filter (see seccomp_fd); `info` one bwrap writes its pid 1's host pid
    to (process.track_init)."""
    if not cfg.enabled:
        return _unsandboxed(argv, {**(ro or {}), **(rw or {})})
    # An absolute path: bwrap itself is started with the clean environment (no PATH of ours).
    args = [shutil.which(cfg.bwrap) or cfg.bwrap, *_system_binds()]
    for dest, host in pythons.binds(cfg.interpreter()).items():  # whatever its prefix (pyenv's under /root)
        args += ["--ro-bind", host, dest]
    # The only writable places are size-capped tmpfs mounts (/tmp, /dev/shm) and `rw` binds: the root
    # and /dev, tmpfs mounts of bwrap's own, would otherwise take writes without any cap.
    cap = str(limits.tmpfs_mb << 20)
    args += ["--proc", "/proc", "--dev", "/dev", "--size", cap, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
    args += ["--size", cap, "--tmpfs", "/tmp"]
    for dest, host in {**(rw or {}), **folders_between(ro or {}, rw or {})}.items():
        args += ["--bind", host, dest]
    for dest, host in (ro or {}).items():  # after rw: a read-only file may sit inside a writable tree
        args += ["--ro-bind", host, dest]
    args += ["--remount-ro", "/", "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if _bwrap_can_disable_userns(args[0]):  # no nested user namespace: its own uncapped tmpfs mounts
        args += ["--unshare-user", "--disable-userns"]
    if seccomp is not None:
        args += ["--seccomp", str(seccomp)]
    if info is not None:
        args += ["--info-fd", str(info)]
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


UID_POOL = 8192
_uid_counter = itertools.count()


def sandbox_uid(cfg: SandboxConfig) -> int:
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


def check_bwrap(cfg: SandboxConfig) -> None:
    if cfg.enabled and shutil.which(cfg.bwrap) is None:
        raise SandboxUnavailable(f"bubblewrap not found: '{cfg.bwrap}' is not on PATH")


