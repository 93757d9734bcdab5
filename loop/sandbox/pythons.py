"""Interpreters a sandbox runs: found by version ("3.9") or path, and bound read-only at their own prefix
whatever it is. A prefix the sandbox uid cannot reach (pyenv's under root's home: bubblewrap, started as that
uid, cannot open it) is bound from a hard-linked mirror in loop's cache, at the same path inside."""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from loop.sandbox.limits import reachable, world_readable

_VERSION = re.compile(r"^(\d+)\.(\d+)$")


def prefix(interpreter: str) -> str:
    """The installation an interpreter belongs to (PREFIX/bin/python -> PREFIX)."""
    return str(Path(interpreter).resolve().parent.parent)


@functools.cache
def version(interpreter: str) -> str | None:
    """"3.9" for a Python 3.9 interpreter; None when it does not run."""
    try:
        done = subprocess.run([interpreter, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _homes() -> list[Path]:
    return [Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions",
            Path(os.environ.get("UV_PYTHON_INSTALL_DIR", Path.home() / ".local" / "share" / "uv" / "python"))]


def where_looked(want: str) -> str:
    return (f"python{want} on /usr/local/bin:/usr/bin, " + ", ".join(str(h) for h in _homes()))


def find(want: str) -> str | None:
    """A path to an interpreter of version `want` ("3.9"), or `want` itself when it is a path that runs."""
    if "/" in want:
        return want if version(want) else None
    m = _VERSION.match(want)
    if not m:
        return None
    found = [shutil.which(f"python{want}", path="/usr/local/bin:/usr/bin:/bin")]
    pyenv, uv = _homes()
    patch = lambda p: [int(x) if x.isdigit() else 0 for x in re.split(r"[.-]", Path(p).parts[-3])[1:4]]  # noqa: E731
    found += sorted(glob.glob(str(pyenv / f"{want}.*" / "bin" / f"python{want}")), key=patch, reverse=True)
    found += sorted(glob.glob(str(uv / f"cpython-{want}.*" / "bin" / f"python{want}")), reverse=True)
    return next((p for p in found if p and version(p) == want), None)


def missing(want: str) -> str:
    """One line: what to install for a Python that is not on this machine."""
    if "/" in want:
        return f"the interpreter {want} does not exist or does not run; install it there or name another"
    return (f"Python {want} is not installed (looked for {where_looked(want)}): install it "
            f"(`uv python install {want}`, `pyenv install {want}`, or your distribution's python{want}) "
            "or name its path")


def binds(interpreter: str) -> dict[str, str]:
    """Read-only binds (path inside -> host folder) that make `interpreter` run in the sandbox at its own path;
    none for the system's (/usr is bound whole)."""
    where = prefix(interpreter)
    if where == "/usr" or where.startswith("/usr/"):
        return {}
    if os.geteuid() != 0 or world_readable(where):
        return {where: where}
    return {where: str(_mirror(where))}


def _mirror(where: str) -> Path:
    """A copy of the prefix (hard links where the file system allows, else a copy) that the sandbox uid can
    reach, made once per prefix and interpreter build."""
    exe = max(Path(where, "bin").glob("python*"), key=lambda p: p.name, default=Path(where))
    stamp = exe.stat() if exe.exists() else Path(where).stat()
    key = hashlib.sha256(f"{where}\0{stamp.st_mtime_ns}\0{stamp.st_size}".encode()).hexdigest()[:16]
    root = Path("/var/cache/loop/pythons")  # only root mirrors: a normal user's sandbox reaches its own prefixes
    dest = root / f"{Path(where).name}-{key}"
    if (dest / ".complete").is_file():
        return dest
    reachable(root)
    tmp = root / f".{dest.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    linked = subprocess.run(["cp", "-al", where, str(tmp)], capture_output=True)
    if linked.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["cp", "-a", where, str(tmp)], check=True, capture_output=True)
    os.chmod(tmp, 0o755)
    (tmp / ".complete").write_text("ok\n")
    try:
        os.rename(tmp, dest)
    except OSError:  # another process made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
