"""loop's runner for Go test binaries (loop/sandbox/inside/gorun.go), built once per Go toolchain into the
environment cache: `go test -exec` starts every test binary through it, under a Landlock ruleset that leaves
the binary no Go toolchain to run and no repository to write (red team round fifteen)."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from loop.errors import HarnessError
from loop.kinds.repo.env import cache_root

SOURCE = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "gorun.go"
MOUNT = "/loop/gorun"  # where a run finds it, read-only


def runner() -> Path:
    """The runner binary for the `go` on PATH (the one that runs the tests), built on first use (its bytes kept for
    this process: an environment cache made afresh, as each test of loop's suite makes one, gets a copy)."""
    _, _, key = _toolchain()
    path = cache_root() / f"gorun-{key}" / "gorun"
    if path.is_file():
        return path
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent.parent, prefix=".gorun-") as tmp:
        out = Path(tmp) / "out"
        out.mkdir()
        (out / "gorun").write_bytes(_built())
        (out / "gorun").chmod(0o755)  # the sandbox's uid runs it
        out.chmod(0o755)
        try:
            os.rename(out, path.parent)
        except OSError:  # another process put it there first: theirs is the same
            pass
    return path


@functools.cache
def _built() -> bytes:
    """The runner built with the `go` on PATH (a few seconds: once per process at most)."""
    go, goroot, _ = _toolchain()
    with tempfile.TemporaryDirectory(prefix="loop-gorun-") as tmp:
        shutil.copy(SOURCE, Path(tmp) / "gorun.go")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "GOPATH": f"{tmp}/gopath",
               "GOCACHE": f"{tmp}/cache", "CGO_ENABLED": "0", "GOFLAGS": "", "GOPROXY": "off",
               "GOTOOLCHAIN": "local", "GOTELEMETRY": "off"}
        done = subprocess.run([go, "build", "-trimpath", "-ldflags", f"-X main.goroot={goroot}", "-o", "gorun",
                               "gorun.go"], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise HarnessError(f"building loop's Go test runner failed: {done.stderr.strip()[-2000:]}")
        return (Path(tmp) / "gorun").read_bytes()


@functools.cache
def _toolchain() -> tuple[str, str, str]:
    """The `go` on PATH (the one that runs the tests), its GOROOT, and the key of a runner built with it."""
    go = shutil.which("go")
    if go is None:
        raise HarnessError("go is not installed: Go test runs need it")
    goroot = _go(go, "env", "GOROOT")
    version = _go(go, "version")
    return go, goroot, hashlib.sha256(SOURCE.read_bytes() + f"\0{version}\0{goroot}".encode()).hexdigest()[:16]


def _go(go: str, *args: str) -> str:
    done = subprocess.run([go, *args], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GOTOOLCHAIN": "local",
                               "HOME": tempfile.gettempdir()})
    if done.returncode != 0:
        raise HarnessError(f"`go {' '.join(args)}` failed: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()
