"""C++ builds, sandboxed: the trusted driver once per task and flag set, then only the candidate.

The driver (generated from task.toml's [signature], loop.kinds.function.cppwire) is compiled to an object file cached on
disk by the hash of everything that goes into it (cache_root()), so a grade compiles the candidate's own file
and links; the sanitizer probe (can the candidate tell the sanitizer build from the plain one?) lives here too.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import threading
from dataclasses import replace
from functools import cache
from pathlib import Path

from loop.cachedir import cache_dir
from loop.errors import HarnessError, TaskError
from loop.kinds.function.cppwire import WIRE_HEADER
from loop.kinds.task import Task
from loop.sandbox import Limits, SandboxConfig, clean_env, run, stage

BUILD_LIMITS = Limits(wall=60.0, memory_mb=2048, fsize_mb=256, nproc=64, output_bytes=256 << 10)
DRIVER = "loop_driver.cpp"
_DRIVERS: dict[str, Path] = {}  # content hash -> folder holding driver.o
_LOCK = threading.Lock()  # the sanitizer build runs in a thread beside the attempts


def cxx() -> str:
    return shutil.which("g++") or "/usr/bin/g++"


@cache
def _compiler_id() -> str:
    """The compiler's version, part of every cache key: an upgraded g++ must not link yesterday's objects."""
    try:
        return subprocess.run([cxx(), "-dumpfullversion", "-dumpmachine"], capture_output=True, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _limits(task: Task) -> Limits:
    return replace(BUILD_LIMITS, wall=task.limits.build_wall)


def driver_object(task: Task, cfg: SandboxConfig, flags: tuple, scratch) -> Path:
    """The folder holding the task's driver compiled with `flags` (driver.o), built on first use.

    TaskError when the driver does not compile (the [signature] disagrees with the contract header);
    HarnessError when the build could not finish (time, memory)."""
    source = task.signature.driver_source(task.contract_file)
    wire = WIRE_HEADER.read_bytes()
    key = hashlib.sha256(b"\0".join([source.encode(), wire, task.contract_file.encode(), task.contract.encode(),
                                     "\0".join(flags).encode(), _compiler_id().encode()])).hexdigest()
    with _LOCK:
        if key in _DRIVERS:
            return _DRIVERS[key]
    cached = cache_root() / key
    if (cached / ".complete").is_file():
        with _LOCK:
            return _DRIVERS.setdefault(key, cached)
    src, out = scratch("loop-drv-src-"), scratch("loop-drv-")
    stage(src, task.contract_file, task.contract)
    stage(src, "cppwire.hpp", wire)
    stage(src, DRIVER, source)
    os.chmod(out, 0o777)  # the build runs as a per-sandbox uid that must write the object here
    argv = [cxx(), *flags, "-I", "/src", "-c", f"/src/{DRIVER}", "-o", "/out/driver.o"]
    result = run(cfg, argv, limits=_limits(task), env=clean_env(0), ro={"/src": str(src)}, rw={"/out": str(out)},
                 address_space=True)
    diag = (result.stderr + result.stdout).decode(errors="replace").strip()
    if result.fault is not None:
        raise HarnessError(f"the driver build did not finish: {result.fault.check}: {result.fault.detail}")
    if result.returncode != 0 or not (out / "driver.o").is_file():
        lines = diag.splitlines()
        first = next((line for line in lines if "error" in line), lines[-1] if lines else "")
        raise TaskError(f"task '{task.name}': the driver generated from [signature] does not build "
                        f"against {task.contract_file}: {first.strip()[:300]}")
    os.chmod(out, 0o755)  # from here on read-only to the sandboxes that link it
    with _LOCK:
        return _DRIVERS.setdefault(key, _keep(out, cached))


def cache_root() -> Path:
    """LOOP_CPP_CACHE, else ~/.cache/loop/cpp; as root /var/cache/loop/cpp, since the sandbox then runs as
    another uid that cannot enter /root."""
    if os.environ.get("LOOP_CPP_CACHE"):
        return Path(os.environ["LOOP_CPP_CACHE"])
    if os.geteuid() == 0:
        return Path("/var/cache/loop/cpp")
    return cache_dir() / "cpp"


def _keep(built: Path, cached: Path) -> Path:
    """Move a finished driver build into the cache (renamed into place whole, so a reader never sees half of
    one); where the cache cannot be written, the build stays this process's own."""
    tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for p in [cached.parent, *cached.parent.parents]:  # the sandbox uid must traverse down to it
            if p == Path(p.anchor) or p.stat().st_uid != os.geteuid():
                break
            os.chmod(p, p.stat().st_mode | 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(built, tmp)
        (tmp / ".complete").write_text("ok\n")
        os.chmod(tmp, 0o755)
        os.rename(tmp, cached)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return cached if (cached / ".complete").is_file() else built  # another process may have won the race
    return cached


def compile_and_link(task: Task, source: str, cfg: SandboxConfig, flags: tuple, scratch, role: str):
    """Compile the candidate's file and link it with the cached driver object into <folder>/prog.
    Returns (folder, build error or None)."""
    driver = driver_object(task, cfg, flags, scratch)
    src = scratch(f"loop-src-{role}-")
    stage(src, task.candidate_file, source)
    stage(src, task.contract_file, task.contract)
    out = scratch(f"loop-bin-{role}-")
    os.chmod(out, 0o777)  # the build runs as a per-sandbox uid that must write the binary here
    argv = [cxx(), *flags, "-I", "/src", f"/src/{task.candidate_file}", "/drv/driver.o", "-o", "/out/prog"]
    try:
        result = run(cfg, argv, limits=_limits(task), env=clean_env(0), ro={"/src": str(src), "/drv": str(driver)},
                     rw={"/out": str(out)}, address_space=True)
    finally:
        shutil.rmtree(src, ignore_errors=True)  # the sources are only needed by the compiler
    if result.fault is not None or result.returncode != 0 or not (out / "prog").exists():
        diag = (result.stderr + result.stdout).decode(errors="replace")
        note = f"{result.fault.check}: {result.fault.detail}\n" if result.fault else ""
        return out, (note + diag)[-4000:] or f"compiler exited with status {result.returncode}"
    return out, None


# What a plain program has no reason to name in its code (comments are gone by then): the sanitizer
# runtimes' own functions and option variables, and the ways to read its own limits and mappings (the plain
# run has RLIMIT_AS, the sanitized one cannot), which tell a sanitized process from a plain one.
_RUNTIME_PROBE = re.compile(r"__(?:a|ub|l|t|m|hwa)san_\w+|__sanitizer_\w+|[A-Z]SAN_OPTIONS|\b(?:get|p)rlimit(?:64)?\b"
                            r"|\bsyscall\s*\(|\bdl(?:sym|open|vsym)\b|/proc/self/(?:limits|maps|smaps|status)")


def sanitizer_probe(task: Task, source: str, cfg: SandboxConfig, scratch) -> str | None:
    """Why the candidate can tell the sanitizer build from the plain one (it could take a clean path
    there and hide what the gate should see), or None. Its own lines, preprocessed under both sets of
    flags, must come out the same (macros spelled by token pasting included) and must not name a
    sanitizer runtime's symbols. Called after a clean build, so preprocessing succeeds."""
    plain = _own_lines(task, source, cfg, task.build_flags, scratch)
    sanitized = _own_lines(task, source, cfg, task.build_flags + task.sanitizer_flags, scratch)
    if plain is None or sanitized is None:
        return None
    if plain != sanitized:
        changed = next((b for a, b in zip(plain, sanitized) if a != b), "")
        return f"the source preprocesses differently under the sanitizer flags: {changed.strip()[:200]}"
    hit = next((m for line in plain if (m := _RUNTIME_PROBE.search(line))), None)
    if hit:
        return f"the source names the sanitizer runtime: {hit.group(0)}"
    return None


def _own_lines(task: Task, source: str, cfg: SandboxConfig, flags: tuple, scratch) -> list[str] | None:
    """The candidate file's own lines after the preprocessor (headers left out); None if it fails."""
    src, out = scratch("loop-pp-src-"), scratch("loop-pp-out-")
    stage(src, task.candidate_file, source)
    stage(src, task.contract_file, task.contract)
    os.chmod(out, 0o777)
    argv = [cxx(), *flags, "-E", "-I", "/src", f"/src/{task.candidate_file}", "-o", "/out/own.i"]
    try:
        result = run(cfg, argv, limits=_limits(task), env=clean_env(0), ro={"/src": str(src)}, rw={"/out": str(out)})
        text = out / "own.i"
        if result.fault is not None or result.returncode != 0 or not text.is_file():
            return None
        own, mine = [], False
        with open(text, errors="replace") as fh:
            for line in fh:
                if line.startswith("# "):
                    mine = line.split('"')[1:2] == [f"/src/{task.candidate_file}"]
                elif mine and line.strip():
                    own.append(line)
        return own
    finally:
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
