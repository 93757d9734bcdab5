"""Turn source text into something runnable in the sandbox: a `Program` that starts `Worker`s.

Python sources are staged beside the worker; C++ sources are compiled once (sandboxed) and the
binary is reused for every repeat, which is what keeps k=5 close to the cost of k=1.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from loop import verdicts as V
from loop.grading.model import HarnessError
from loop.sandbox import (
    CandidateFault, Limits, SandboxConfig, Worker, clean_env, make_scratch, run, stage,
)
from loop.codec import enc
from loop.tasks import CheckSource, Task

WORKER_SOURCE = Path(__file__).resolve().parent.parent / "sandbox_worker.py"
CODEC_SOURCE = WORKER_SOURCE.with_name("codec.py")
BUILD_LIMITS = Limits(wall=60.0, memory_mb=2048, fsize_mb=256, nproc=64, output_bytes=256 << 10)
_SCRATCH: list[Path] = []


@atexit.register
def _cleanup() -> None:
    for path in _SCRATCH:
        shutil.rmtree(path, ignore_errors=True)


def scratch(prefix: str) -> Path:
    """A scratch folder (see make_scratch) removed when this process exits."""
    path = make_scratch(prefix)
    _SCRATCH.append(path)
    return path


def stage_worker(folder: Path, name: str = "worker.py") -> Path:
    """Stage the sandbox worker as `name` with the codec it imports beside it: it runs by path with -S,
    where no `loop` package can be imported."""
    stage(folder, "codec.py", CODEC_SOURCE.read_bytes())
    return stage(folder, name, WORKER_SOURCE.read_bytes())


@dataclass
class Program:
    """One built piece of code (candidate, baseline or reference) of one task."""

    task: Task
    role: str
    folder: Path  # host folder, bound read-only at /work
    argv: list[str]
    build_error: str | None = None
    sanitized: bool = False

    def start(self, cfg: SandboxConfig, *, repeat: int, deadline: float | None = None) -> Worker:
        env = clean_env(repeat)
        limits = self.task.limits
        if self.task.language == "cpp":  # plain builds too: a candidate must not tell them apart by getenv
            env["ASAN_OPTIONS"] = "exitcode=86:detect_leaks=0:abort_on_error=0:hard_rss_limit_mb=%d" % limits.memory_mb
            env["UBSAN_OPTIONS"] = "exitcode=86:halt_on_error=1:print_stacktrace=1"
        kw = {"private_input": True}
        if self.task.language == "cpp":
            kw = {"encode": _pairs_encode, "decode": _pairs_decode}
        worker = Worker(
            cfg, self.argv, limits=limits, env=env, ro={"/work": str(self.folder)},
            deadline=deadline, address_space=not self.sanitized, **kw,
        )
        try:
            msg = worker.ready()
            if msg != {"ready": 1}:
                raise CandidateFault(V.CRASH, f"did not load after a clean build: {str(msg.get('build_error', msg))[-300:]}")
        except CandidateFault as fault:
            worker.close()
            if self.role.startswith("candidate"):
                raise  # whatever the candidate's code writes before the handshake is its own failure
            raise HarnessError(f"the {self.role} did not load after a clean build: {fault.detail}") from None
        return worker


def _pairs_encode(rid: int, args: list) -> bytes:
    (intervals,) = args
    flat = " ".join(f"{lo} {hi}" for lo, hi in intervals)
    return f"{rid} {len(intervals)} {flat}\n".encode()


def _pairs_decode(line: bytes) -> dict:
    parts = line.decode(errors="replace").split(" ", 2)
    if parts == ["ready"]:
        return {"ready": 1}
    rid, what = int(parts[0]), parts[1]
    rest = parts[2] if len(parts) > 2 else ""
    if what == "ok":
        nums = [int(x) for x in rest.split()]
        if nums[0] * 2 != len(nums) - 1:
            raise ValueError("bad pair count")
        return {"id": rid, "ok": [[nums[i], nums[i + 1]] for i in range(1, len(nums), 2)], "after": None}
    if what in ("resource", "raised"):
        return {"id": rid, what: rest}
    raise ValueError(f"unknown reply {what}")


def build(task: Task, source: str, role: str, cfg: SandboxConfig, *, sanitize: bool = False) -> Program:
    """Stage or compile `source`; a compile error is returned as `build_error`, never raised.

    Raises SandboxUnavailable when the sandbox itself cannot start.
    """
    if task.language == "python":
        if role not in ("baseline", "reference"):
            return _build_python(task, source, role, cfg)
        # Trusted code is import-checked once per process, not once per grade.
        key = (str(task.path), role, hashlib.sha256(source.encode()).hexdigest(), cfg)
        if key not in _PY_CACHE:
            _PY_CACHE[key] = _build_python(task, source, role, cfg)
        return _PY_CACHE[key]
    return _build_cpp(task, source, role, cfg, sanitize)


_PY_CACHE: dict[tuple, Program] = {}


def _build_python(task: Task, source: str, role: str, cfg: SandboxConfig) -> Program:
    folder = scratch(f"loop-{role}-")
    stage(folder, task.candidate_file, source)
    stage_worker(folder)  # after: a candidate file named like the worker or codec fails to build, never runs as it
    # -s -S -P, not -I: -I implies -E, which would ignore the per-repeat PYTHONHASHSEED (env is cleared anyway).
    argv = [cfg.interpreter(), "-s", "-S", "-P", "-B", "/work/worker.py", "{fd}", "{jobs}",
            f"/work/{task.candidate_file}", task.entry_point]
    if has_checks(task):  # a check(candidate) decides a verdict: it runs in a process of its own
        argv.append("split")
    program = Program(task, role, folder, argv)
    # "Build" for Python is importing the module and finding the entry point, sandboxed.
    worker = Worker(cfg, argv, limits=task.limits, env=clean_env(0), ro={"/work": str(folder)}, private_input=True)
    try:
        msg = worker.ready()
    except Exception as exc:  # a candidate that hangs or dies at import time fails the build
        program.build_error = f"import failed: {getattr(exc, 'detail', exc)}"
        return program
    finally:
        worker.close()
    if msg != {"ready": 1}:  # its own error, or whatever else the candidate wrote before the handshake
        error = msg.get("build_error")
        program.build_error = error if isinstance(error, str) else "import failed: the candidate wrote on the result channel"
    return program


_CPP_CACHE: dict[tuple, Program] = {}


def _build_cpp(task: Task, source: str, role: str, cfg: SandboxConfig, sanitize: bool) -> Program:
    flags = task.build_flags + (task.sanitizer_flags if sanitize else ())
    key = (str(task.path), hashlib.sha256(source.encode()).hexdigest(), flags, cfg)
    if key in _CPP_CACHE:
        return _CPP_CACHE[key]
    src = scratch(f"loop-src-{role}-")
    stage(src, task.candidate_file, source)
    stage(src, task.contract_file, task.contract)
    stage(src, "loop_driver.cpp", task.driver)
    out = scratch(f"loop-bin-{role}-")
    os.chmod(out, 0o777)  # the build runs as a per-sandbox uid that must write the binary here
    cxx = shutil.which("g++") or "/usr/bin/g++"
    argv = [cxx, *flags, "-I", "/src", f"/src/{task.candidate_file}", "/src/loop_driver.cpp", "-o", "/out/prog"]
    result = run(cfg, argv, limits=replace(BUILD_LIMITS, wall=task.limits.build_wall), env=clean_env(0), ro={"/src": str(src)}, rw={"/out": str(out)},
                 address_space=True)
    program = Program(task, role, out, ["/work/prog", "{fd}"], sanitized=sanitize)
    if result.fault is not None or result.returncode != 0 or not (out / "prog").exists():
        diag = (result.stderr + result.stdout).decode(errors="replace")
        note = f"{result.fault.check}: {result.fault.detail}\n" if result.fault else ""
        program.build_error = (note + diag)[-4000:] or f"compiler exited with status {result.returncode}"
    _CPP_CACHE[key] = program
    return program


def has_checks(task: Task) -> bool:
    return any(len(t.args) == 1 and isinstance(t.args[0], CheckSource) for t in task.tests)


# What a plain program has no reason to name in its code (comments are gone by then): the sanitizer
# runtimes' own functions and option variables, which tell a sanitized process from a plain one.
_RUNTIME_PROBE = re.compile(r"__(?:a|ub|l|t|m|hwa)san_\w+|__sanitizer_\w+|[A-Z]SAN_OPTIONS")


def sanitizer_probe(task: Task, source: str, cfg: SandboxConfig) -> str | None:
    """Why the candidate can tell the sanitizer build from the plain one (it could take a clean path
    there and hide what the gate should see), or None. Its own lines, preprocessed under both sets of
    flags, must come out the same (macros spelled by token pasting included) and must not name a
    sanitizer runtime's symbols. Called after a clean build, so preprocessing succeeds."""
    plain = _own_lines(task, source, cfg, task.build_flags)
    sanitized = _own_lines(task, source, cfg, task.build_flags + task.sanitizer_flags)
    if plain is None or sanitized is None:
        return None
    if plain != sanitized:
        changed = next((b for a, b in zip(plain, sanitized) if a != b), "")
        return f"the source preprocesses differently under the sanitizer flags: {changed.strip()[:200]}"
    hit = next((m for line in plain if (m := _RUNTIME_PROBE.search(line))), None)
    if hit:
        return f"the source names the sanitizer runtime: {hit.group(0)}"
    return None


def _own_lines(task: Task, source: str, cfg: SandboxConfig, flags: tuple) -> list[str] | None:
    """The candidate file's own lines after the preprocessor (headers left out); None if it fails."""
    src, out = scratch("loop-pp-src-"), scratch("loop-pp-out-")
    stage(src, task.candidate_file, source)
    stage(src, task.contract_file, task.contract)
    os.chmod(out, 0o777)
    cxx = shutil.which("g++") or "/usr/bin/g++"
    argv = [cxx, *flags, "-E", "-I", "/src", f"/src/{task.candidate_file}", "-o", "/out/own.i"]
    try:
        result = run(cfg, argv, limits=replace(BUILD_LIMITS, wall=task.limits.build_wall), env=clean_env(0),
                     ro={"/src": str(src)}, rw={"/out": str(out)})
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


def wire_args(args: tuple) -> list | dict:
    if len(args) == 1 and isinstance(args[0], CheckSource):
        return {"check": str(args[0])}  # a whole `check(candidate)` run inside the sandbox (imported tasks)
    return [enc(a) for a in args]
