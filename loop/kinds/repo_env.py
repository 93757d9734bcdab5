"""The environment a repository's tests need (a requirements list), built once per content hash into a
cache outside the repository and mounted read-only into the sandbox.

Building is the only step with network, and it runs no candidate code: pip installs the task's own
pinned requirements into a fresh folder, which is renamed into place only once complete.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from loop.grading.model import HarnessError

BUILD_TIMEOUT = 900


def cache_root() -> Path:
    """LOOP_ENV_CACHE, else ~/.cache/loop/envs; as root /var/cache/loop/envs, since the sandbox then runs as
    another uid that cannot enter /root (bubblewrap binds only what that uid can reach)."""
    if os.environ.get("LOOP_ENV_CACHE"):
        return Path(os.environ["LOOP_ENV_CACHE"])
    if os.geteuid() == 0:
        return Path("/var/cache/loop/envs")
    return Path.home() / ".cache" / "loop" / "envs"


def env_key(requirements: str, interpreter: str) -> str:
    version = subprocess.run([interpreter, "-c", "import sys; print(sys.version)"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    return hashlib.sha256(f"{interpreter}\0{version}\0{requirements}".encode()).hexdigest()[:24]


def _pip(interpreter: str) -> list[str]:
    """The sandbox interpreter's own pip when it has one, else loop's (same major.minor needed for wheels
    with compiled parts; pure-Python requirements do not care)."""
    probe = subprocess.run([interpreter, "-m", "pip", "--version"], capture_output=True, timeout=60)
    return [interpreter if probe.returncode == 0 else sys.executable, "-m", "pip"]


def ensure(requirements: str, interpreter: str) -> Path:
    """The folder holding the requirements (for PYTHONPATH), building it on first use."""
    root = cache_root()
    path = root / env_key(requirements, interpreter)
    if (path / ".complete").is_file():
        return path
    root.mkdir(parents=True, exist_ok=True)
    for p in [root, *root.parents]:  # the sandbox uid must traverse down to it
        if p == Path(p.anchor) or p.stat().st_uid != os.geteuid():
            break
        os.chmod(p, p.stat().st_mode | 0o755)
    tmp = root / f".{path.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    (tmp / "requirements.txt").write_text(requirements, encoding="utf-8")
    try:
        done = subprocess.run([*_pip(interpreter), "install", "--quiet", "--disable-pip-version-check", "--no-input",
                               "--target", str(tmp), "-r", str(tmp / "requirements.txt")],
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessError(f"environment build failed: {exc}") from None
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessError(f"environment build failed: {done.stderr.strip()[-400:]}")
    for dirpath, dirs, files in os.walk(tmp):
        os.chmod(dirpath, 0o755)
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644 | (os.stat(p).st_mode & 0o111))
    (tmp / ".complete").write_text("ok\n")
    try:
        os.rename(tmp, path)
    except OSError:  # another process finished the same environment first: use theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return path
