"""Turn source text into something runnable in the sandbox: a `Program` that starts `Worker`s.

Python sources are staged beside the worker; C++ sources are compiled once (sandboxed, loop.kinds.function.cpp)
and the binary is reused for every repeat, which is what keeps k=5 close to the cost of k=1.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError
from loop.kinds.function import cpp
from loop.kinds.task import CheckSource, Task
from loop.sandbox import SandboxConfig, Worker, clean_env, remove_scratch, scratch, stage
from loop.sandbox.inside.codec import dec, enc

WORKER_SOURCE = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "worker.py"
CODEC_SOURCE = WORKER_SOURCE.with_name("codec.py")


def release(program: Program | None) -> None:
    """A candidate's program is done with once its grade is: its folder goes now, not at exit (a long
    batch would otherwise keep every candidate's files, and a killed one leave them all behind)."""
    if program is None or not program.role.startswith("candidate"):
        return  # trusted programs are built once per process and kept
    remove_scratch(program.folder)


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
            kw.update(encode=_signature_encoder(self.task), decode=self.task.signature.decode_reply)
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


def _signature_encoder(task: Task):
    """Requests for a C++ driver, typed by the task's [signature]; an input that does not fit it is the
    task's problem (its generator or a relation), never the candidate's."""
    def encode(rid: int, args: list) -> bytes:
        try:
            return task.signature.encode_request(rid, [dec(a) for a in args])
        except (ValueError, TypeError) as exc:
            raise HarnessError(f"task '{task.name}': an input does not fit its [signature]: {exc}") from None
    return encode


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
    """Trusted programs are compiled once per process; a candidate's once per grade, its own (released
    with the grade, so never shared with the reference even when the sources are equal)."""
    flags = task.build_flags + (task.sanitizer_flags if sanitize else ())
    key = (str(task.path), role, hashlib.sha256(source.encode()).hexdigest(), flags, cfg)
    trusted = not role.startswith("candidate")
    if trusted and key in _CPP_CACHE:
        return _CPP_CACHE[key]
    out, error = cpp.compile_and_link(task, source, cfg, flags, scratch, role)
    program = Program(task, role, out, ["/work/prog", "{fd}", "{jobs}"], build_error=error, sanitized=sanitize)
    if trusted:
        _CPP_CACHE[key] = program
    return program


def has_checks(task: Task) -> bool:
    return any(len(t.args) == 1 and isinstance(t.args[0], CheckSource) for t in task.tests)


def sanitizer_probe(task: Task, source: str, cfg: SandboxConfig) -> str | None:
    """Whether the candidate can tell the sanitizer build from the plain one (loop.kinds.function.cpp)."""
    return cpp.sanitizer_probe(task, source, cfg, scratch)


def wire_args(args: tuple) -> list | dict:
    if len(args) == 1 and isinstance(args[0], CheckSource):
        return {"check": str(args[0])}  # a whole `check(candidate)` run inside the sandbox (imported tasks)
    return [enc(a) for a in args]
