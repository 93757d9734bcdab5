"""The references' outputs on an import's inputs: many references per sandboxed process (batch_inside.py), the
work split over the cores, each input's outcome under several hash seeds, and what was computed remembered
in loop's cache (keyed by source, inputs, seed and loop's code), so a second import of a file runs nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from loop import cachedir
from loop.sandbox import Limits, SandboxConfig, clean_env, remove_scratch, run, scratch, stage
from loop.sandbox.inside.codec import dec, enc

INSIDE = Path(__file__).with_name("batch_inside.py")
CODEC = Path(__file__).resolve().parents[2] / "sandbox" / "inside" / "codec.py"
BATCH_WALL = 600.0  # seconds one batch process may run (inputs are timed one by one; this bounds C code that hangs)
NO_LOAD = "the reference does not load"  # batch_inside.py's words for a source that does not run
LIMITS = Limits(wall=BATCH_WALL, memory_mb=4096, output_bytes=1 << 30, tmpfs_mb=64)


@dataclass(frozen=True)
class Job:
    """One trusted source to run on its inputs (argument lists of Python values), `limit` seconds each."""

    source: str
    entry: str
    inputs: tuple
    limit: float = 10.0
    not_none: int = 0  # EvalPlus's output_not_none problems: 1 its ground truth, 2 a solution (batch_inside.py)

    @property
    def encoded(self) -> list:
        return [[enc(a) for a in args] for args in self.inputs]


@dataclass(frozen=True)
class Outcome:
    ok: bool
    value: object  # the output (decoded), or why there is none
    changed: bool  # the call changed an argument
    seconds: float


def run_jobs(jobs: list[Job], cfg: SandboxConfig, seed: int, workers: int | None = None) -> list[list[Outcome]]:
    """Each job's outcomes, in input order, with PYTHONHASHSEED=seed; remembered jobs run nothing."""
    results: list[list[Outcome] | None] = [None] * len(jobs)
    keys = [_key(job, seed) for job in jobs]
    for n, k in enumerate(keys):
        results[n] = _recall(k)
    todo = [n for n, r in enumerate(results) if r is None]
    if todo:
        workers = workers or max(1, min(len(todo), os.cpu_count() or 1))
        chunks = _split(todo, jobs, min(len(todo), 4 * workers))  # a slow chunk leaves no core idle
        with ThreadPoolExecutor(workers, thread_name_prefix="loop-references") as pool:
            for chunk, outcomes in zip(chunks, pool.map(lambda c: _run_chunk([jobs[n] for n in c], cfg, seed), chunks)):
                for n, out in zip(chunk, outcomes):
                    results[n] = out
                    _remember(keys[n], out)
    return results  # type: ignore[return-value]


def _split(todo: list[int], jobs: list[Job], parts: int) -> list[list[int]]:
    """Jobs dealt into `parts` chunks of about equal input counts, largest first."""
    chunks: list[list[int]] = [[] for _ in range(parts)]
    sizes = [0] * parts
    for n in sorted(todo, key=lambda n: -len(jobs[n].inputs)):
        i = sizes.index(min(sizes))
        chunks[i].append(n)
        sizes[i] += len(jobs[n].inputs) + 1
    return [sorted(c) for c in chunks if c]


def _run_chunk(jobs: list[Job], cfg: SandboxConfig, seed: int) -> list[list[Outcome]]:
    """One process after another until every input has a line: a process that dies or overruns loses the
    input it was on (that input fails), and the next starts after it."""
    out: list[list[Outcome]] = [[] for _ in jobs]
    folder = scratch("loop-references-")
    try:
        stage(folder, "codec.py", CODEC.read_bytes())
        stage(folder, "batch_inside.py", INSIDE.read_bytes())
        env = dict(clean_env(0), PYTHONHASHSEED=str(seed))
        while True:
            pending = [(j, len(out[j])) for j, job in enumerate(jobs) if len(out[j]) < len(job.inputs)]
            if not pending:
                return out
            batch = [dict(source=jobs[j].source, entry=jobs[j].entry, inputs=jobs[j].encoded, start=start,
                          limit=jobs[j].limit, not_none=jobs[j].not_none) for j, start in pending]
            stage(folder, "batch.json", json.dumps(batch))
            result = run(cfg, [cfg.interpreter(), "-s", "-S", "-P", "-B", "/work/batch_inside.py", "/work/batch.json"],
                         limits=LIMITS, env=env, ro={"/work": str(folder)})
            for line in result.stdout.decode(errors="replace").splitlines():
                try:
                    j, i, ok, value, changed, seconds = json.loads(line)
                    job = pending[j][0]
                    if i != len(out[job]):
                        break
                    out[job].append(Outcome(bool(ok), dec(value) if ok else str(value), bool(changed), float(seconds)))
                except (ValueError, TypeError, IndexError):
                    break  # the cut-off last line of a process that died mid-write
            pending = [(j, len(out[j])) for j, job in enumerate(jobs) if len(out[j]) < len(job.inputs)]
            if pending:  # the process ended before the end: the input it was on is the reference's failure
                j, _ = pending[0]
                why = result.fault.detail if result.fault is not None else f"exit status {result.returncode}"
                out[j].append(Outcome(False, f"the reference's process ended ({why})", False, 0.0))
    finally:
        remove_scratch(folder)


def _key(job: Job, seed: int) -> str:
    digest = hashlib.sha256(json.dumps([job.source, job.entry, job.encoded, job.limit, job.not_none]).encode()).hexdigest()
    return cachedir.key("evalplus-references", digest, seed)


def _path(key: str) -> Path:
    return cachedir.cache_dir() / "evalplus-references" / f"{key}.json"


def _recall(key: str) -> list[Outcome] | None:
    try:
        rows = json.loads(_path(key).read_text())
        return [Outcome(ok, dec(value) if ok else value, changed, seconds) for ok, value, changed, seconds in rows]
    except (OSError, ValueError, TypeError):
        return None


def _remember(key: str, outcomes: list[Outcome]) -> None:
    """Best effort: a cache that cannot be written is a slower next import, never an error."""
    path = _path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([[o.ok, enc(o.value) if o.ok else o.value, o.changed, o.seconds] for o in outcomes]))
        tmp.replace(path)
    except (OSError, TypeError, ValueError):
        pass
