"""The runner: turns a command's intent into grades and rows (grade one file, replay one candidate).

It calls tasks, grading and the store; it never prints (the CLI does) and raises LoopErrors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loop import seeds, tasks
from loop.config import Config
from loop.errors import CandidateError, TaskError
from loop.grading.grade import Options, check_polarity, grade, sha256
from loop.grading.model import Grade
from loop.grading.triage import load_quarantine
from loop.sandbox import SandboxConfig, SandboxUnavailable
from loop.store import RunStore

MAX_CANDIDATE_BYTES = 1 << 20


def sandbox_config(cfg: Config, no_sandbox: bool = False) -> SandboxConfig:
    s = cfg.sandbox
    return SandboxConfig(enabled=s.enabled and not no_sandbox, bwrap=s.bwrap, python=s.python, uid=s.uid)


def read_candidate(path: Path) -> str:
    """Read a candidate file or raise a one-line CandidateError naming it."""
    if not path.is_file():
        raise CandidateError(f"{path}: candidate file not found")
    size = path.stat().st_size
    if size == 0:
        raise CandidateError(f"{path}: candidate file is empty")
    if size > MAX_CANDIDATE_BYTES:
        raise CandidateError(f"{path}: candidate file is {size} bytes, more than the {MAX_CANDIDATE_BYTES} allowed")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CandidateError(f"{path}: candidate file is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def quarantined_checks(cfg: Config, task: str) -> set[str]:
    entries = load_quarantine(cfg.root / "harness" / "quarantine.toml")
    return {q.check for q in entries if q.task == task}


_POLARITY_OK: set[tuple] = set()


def prepare(cfg: Config, name: str, sandbox: SandboxConfig) -> tasks.Task:
    """Load a task and refuse it when baseline polarity does not hold.

    Without a working sandbox polarity cannot be checked; the grade then says `inconclusive`.
    """
    task = tasks.load(cfg.root, name)
    key = (str(task.path), task.baseline, task.reference, repr(task.tests), sandbox)
    if key not in _POLARITY_OK:
        try:
            problems = check_polarity(task, sandbox)
        except SandboxUnavailable:
            return task
        if problems:
            raise TaskError(f"task refused: {problems[0]}")
        _POLARITY_OK.add(key)
    return task


@dataclass
class Graded:
    candidate_id: int
    batch_id: int
    grade: Grade


def grade_file(cfg: Config, task_name: str, path: Path, *, suite: str | None = None, seed: int | None = None,
               trials: int | None = None, k: int | None = None, db: Path | None = None,
               no_sandbox: bool = False) -> Graded:
    sandbox = sandbox_config(cfg, no_sandbox)
    source = read_candidate(path)
    quarantine = quarantined_checks(cfg, task_name)
    task = prepare(cfg, task_name, sandbox)
    opts = Options(suite=suite or cfg.loop.suite,
                   seed=seeds.current(cfg.root) if seed is None else seed,
                   trials=cfg.loop.trials if trials is None else trials,
                   k=cfg.loop.k if k is None else k)
    result = grade(task, source, sandbox, opts, quarantine)
    # Written only once the grade exists: a crash or a bad input leaves nothing half-written.
    with RunStore(db or cfg.db_path) as store:
        batch_id = store.start_batch("grade", seed=opts.seed, suite=opts.suite, k=opts.k, trials=opts.trials,
                                     sandboxed=int(sandbox.enabled), config=cfg.snapshot(), command=f"grade {path}")
        cid = store.add_candidate(batch_id, task.name, 0, source=source, sha256=sha256(source))
        store.record_grade(cid, result)
        store.finish_batch(batch_id)
    return Graded(cid, batch_id, result)


def replay(cfg: Config, candidate_id: int, db: Path | None = None, no_sandbox: bool = False) -> tuple[dict, Grade]:
    """Re-grade a stored candidate from its stored source and seed; the stored verdict is not trusted."""
    with RunStore(db or cfg.db_path) as store:
        row = store.candidate(candidate_id)
        batch = store.batch(row["batch_id"])
    sandbox = sandbox_config(cfg, no_sandbox)
    task = prepare(cfg, row["task"], sandbox)
    opts = Options(suite=row["suite"] or cfg.loop.suite, seed=row["seed"] if row["seed"] is not None else batch["seed"],
                   trials=batch["trials"] if batch["trials"] is not None else cfg.loop.trials,
                   k=row["k"] or cfg.loop.k)
    return row, grade(task, row["source"], sandbox, opts, quarantined_checks(cfg, task.name))
