"""The runner: turns a command's intent into grades and rows (grade one file, replay one candidate).

It calls tasks, grading and the store; it never prints (the CLI does) and raises LoopErrors.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loop import executors, kinds, seeds, tasks
from loop import verdicts as V
from loop.config import Config, EndpointSettings
from loop.errors import CandidateError, CassetteError, TaskError
from loop.grading.grade import Options, grade, sha256
from loop.grading.model import Grade
from loop.grading.triage import load_quarantine
from loop.sandbox import SandboxConfig, SandboxUnavailable
from loop.settings import (Origin, default_origin, effective_settings, endpoint_settings, make_transport,
                           missing_key_warning, resumed_origin, sandbox_config)
from loop.store import RunStore

MAX_CANDIDATE_BYTES = 1 << 20


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


def load_verified_task(cfg: Config, name: str, sandbox: SandboxConfig) -> tasks.Task:
    """Load a task and refuse it when baseline polarity does not hold.

    Without a working sandbox polarity cannot be checked; the grade then says `inconclusive`.
    """
    task = tasks.load(cfg.root, name)
    key = (str(task.path), task.baseline, task.reference, repr(task.tests), sandbox)
    if key not in _POLARITY_OK:
        try:
            problems = kinds.get(task.kind).polarity(task, sandbox)
        except SandboxUnavailable:
            return task
        if problems:
            raise TaskError(f"task refused: {problems[0]}")
        _POLARITY_OK.add(key)
    return task


@dataclass
class StoredGrade:
    """A grade and the rows it was stored as."""

    candidate_id: int
    batch_id: int
    grade: Grade


def grade_file(cfg: Config, task_name: str, path: Path, *, suite: str | None = None, seed: int | None = None,
               trials: int | None = None, k: int | None = None, db: Path | None = None,
               no_sandbox: bool = False) -> StoredGrade:
    sandbox = sandbox_config(cfg, no_sandbox)
    source = read_candidate(path)
    quarantine = quarantined_checks(cfg, task_name)
    task = load_verified_task(cfg, task_name, sandbox)
    opts = Options(suite=suite or cfg.loop.suite,
                   seed=seeds.current(cfg.root) if seed is None else seed,
                   trials=cfg.loop.trials if trials is None else trials,
                   k=cfg.loop.k if k is None else k)
    result = grade(task, source, sandbox, opts, quarantine)
    # Written only once the grade exists: a crash or a bad input leaves nothing half-written.
    with RunStore(db or cfg.db_path) as store, \
            store.batch("grade", seed=opts.seed, suite=opts.suite, k=opts.k, trials=opts.trials,
                        sandboxed=int(sandbox.enabled), config=cfg.snapshot(), command=f"grade {path}") as batch_id:
        cid = store.add_candidate(batch_id, task.name, 0, source=source, sha256=sha256(source))
        store.record_grade(cid, result)
    return StoredGrade(cid, batch_id, result)


def replay(cfg: Config, candidate_id: int, db: Path | None = None, no_sandbox: bool = False) -> tuple[dict, Grade]:
    """Re-grade a stored candidate from its stored source and seed; the stored verdict is not trusted."""
    with RunStore(db or cfg.db_path) as store:
        row = store.candidate(candidate_id)
        batch = store.batch_row(row["batch_id"])
    sandbox = sandbox_config(cfg, no_sandbox)
    task = load_verified_task(cfg, row["task"], sandbox)
    opts = Options(suite=row["suite"] or cfg.loop.suite, seed=row["seed"] if row["seed"] is not None else batch["seed"],
                   trials=batch["trials"] if batch["trials"] is not None else cfg.loop.trials,
                   k=row["k"] or cfg.loop.k)
    return row, grade(task, row["source"], sandbox, opts, quarantined_checks(cfg, task.name))


# the batch loop ---------------------------------------------------------------
@dataclass
class BatchResult:
    batch_id: int
    candidates: int
    infra_unknown: int
    no_code: int
    verdicts: dict


def repair_prompt(task: tasks.Task, sandbox: SandboxConfig) -> list[dict]:
    """The repair prompt: description, contract, baseline and one demonstrated failing example only."""
    from loop.grading.grade import demonstrate
    from loop.prompts import render_repair

    example = demonstrate(task, sandbox) if task.example else None
    return render_repair(task_name=task.name, description=f"{task.description}\n\nBug report: {task.bug_report}",
                         language=task.language, contract=task.contract, baseline=task.baseline or "",
                         candidate_file=task.candidate_file, example=example)


def run_batch(cfg: Config, task_names: list[str], *, origin: Origin, samples: int | None = None,
              k: int | None = None, trials: int | None = None, rotate_seed: bool = False, resume: int | None = None,
              db: Path | None = None, grade_now: bool = True, progress: Callable[[dict], None] | None = None,
              workers: int | None = None, command: str | None = None,
              warn: Callable[[str], None] | None = None) -> BatchResult:
    """Generate candidates and grade each as it arrives (generation and grading overlap).

    Every reply and every grade is committed as soon as it exists; `resume` finishes a batch after a
    crash without asking the endpoint again for what was received and without duplicate rows.
    """
    sandbox = sandbox_config(cfg)
    workers = workers or cfg.loop.concurrency or os.cpu_count() or 1
    trials = cfg.loop.trials if trials is None else trials
    k = k or cfg.loop.k
    with RunStore(db or cfg.db_path) as store:
        if resume is not None:
            batch = store.batch_row(resume)
            # A resume that fails for any reason, a refused --model included, marks the batch failed.
            with store.batch(resume=resume):
                rows = store.candidates(resume)
                origin, recorded = resumed_origin(batch, origin)
                if origin.base_url and origin.base_url != batch["endpoint"]:
                    store.note_resume(resume, origin.base_url, command)
                job = _Job.load(cfg, sorted({r["task"] for r in rows}), origin, recorded, sandbox, grade_now, warn)
                opts = Options(suite=batch["suite"] or cfg.loop.suite, seed=batch["seed"],
                               trials=batch["trials"] if batch["trials"] is not None else trials, k=batch["k"] or k)
                return _Pipeline(cfg, store, resume, job, sandbox, opts, grade_now, progress, workers).run(rows)
        origin = default_origin(cfg, origin)
        names = task_names or cfg.loop.tasks or tasks.list_tasks(cfg.root)
        if rotate_seed or cfg.loop.seed_policy == "rotate":
            store.record_rotation(*seeds.rotate(cfg.root))
        opts = Options(suite=cfg.loop.suite, seed=seeds.current(cfg.root), trials=trials, k=k)
        job = _Job.load(cfg, names, origin, None, sandbox, grade_now, warn)
        samples = samples or cfg.loop.samples
        kind = "run" if grade_now else "generate"
        loop = {"k": opts.k, "trials": opts.trials, "suite": opts.suite, "seed": opts.seed, "samples": samples,
                "workers": workers}
        # A cassette that turns out not to belong to this batch leaves no trace of it.
        with store.batch(kind, discard_on=(CassetteError,), seed=opts.seed, model=job.settings.model,
                         endpoint=job.settings.base_url, k=opts.k, trials=opts.trials, suite=opts.suite,
                         config=effective_settings(cfg, job.settings, origin, loop), sandboxed=int(sandbox.enabled),
                         command=command or kind) as batch_id:
            for n in names:
                for s in range(samples):
                    store.add_candidate(batch_id, n, s, source=None, status="pending", model=job.settings.model)
            rows = store.candidates(batch_id)
            return _Pipeline(cfg, store, batch_id, job, sandbox, opts, grade_now, progress, workers).run(rows)


@dataclass
class _Job:
    """What a batch needs before it asks anything: its tasks, their quarantines, and the endpoint to ask."""

    loaded: dict[str, tasks.Task]
    quarantine: dict[str, frozenset]
    settings: EndpointSettings
    transport: object  # an httpx transport for a cassette, or None for a live endpoint

    @classmethod
    def load(cls, cfg: Config, names: list[str], origin: Origin, recorded: dict | None, sandbox: SandboxConfig,
             grade_now: bool, warn: Callable[[str], None] | None) -> _Job:
        quarantine = {n: frozenset(quarantined_checks(cfg, n)) for n in names}
        loaded = {n: load_verified_task(cfg, n, sandbox) if grade_now else tasks.load(cfg.root, n) for n in names}
        settings = endpoint_settings(cfg, origin, recorded)
        message = missing_key_warning(cfg, settings, origin) if warn is not None else None
        if message:
            warn(message)
        for task in loaded.values() if warn is not None and grade_now else ():
            why = kinds.unavailable(task)  # a missing toolchain: its grades say inconclusive, the batch goes on
            if why:
                warn(why)
        return cls(loaded, quarantine, settings, make_transport(origin))


class _Pipeline:
    """One batch's moving parts: the async endpoint, the executor that grades (loop/executors.py), and the
    store. Each task's kind writes its prompt and finds the candidate in a reply."""

    def __init__(self, cfg: Config, store: RunStore, batch_id: int, job: _Job, sandbox: SandboxConfig,
                 opts: Options, grade_now: bool, progress: Callable[[dict], None] | None, workers: int):
        self.cfg, self.store, self.batch_id, self.loaded = cfg, store, batch_id, job.loaded
        self.settings, self.transport, self.sandbox, self.opts = job.settings, job.transport, sandbox, opts
        self.quarantine, self.grade_now, self.progress, self.workers = job.quarantine, grade_now, progress, workers
        self.counts = {"total": 0, "done": 0, "infra_unknown": 0, "no_code": 0}
        self.verdicts: dict[str, int] = {}
        self.graded_sha: dict[str, int] = {}   # "task:sha" -> candidate id holding the grade
        self.inflight: dict[str, asyncio.Future] = {}

    def run(self, rows: list[dict]) -> BatchResult:
        self.counts["total"] = len(rows)
        for r in rows:
            if r["verdict"] is not None:
                self._tally(r["verdict"])
                if r["source_sha256"] and r["duplicate_of"] is None:
                    self.graded_sha[f"{r['task']}:{r['source_sha256']}"] = r["id"]
        asyncio.run(self._main([r for r in rows if r["verdict"] is None]))
        return BatchResult(self.batch_id, len(rows), self.counts["infra_unknown"], self.counts["no_code"],
                           dict(self.verdicts))

    def _tally(self, verdict: str) -> None:
        self.counts["done"] += 1
        self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        if self.progress:
            self.progress({**self.counts, "verdicts": dict(self.verdicts)})

    async def _main(self, todo: list[dict]) -> None:
        from loop.endpoint import Endpoint

        need_reply = [r for r in todo if r["status"] == "pending"]
        # Where grades run is the executor's business (fork servers where they apply, a process pool else).
        self.executor = executors.for_batch(self.sandbox, self.opts, self.loaded, self.workers) if self.grade_now else None
        self.refs = {n: executors.ref_for(self.cfg.root, t) for n, t in self.loaded.items()} if self.grade_now else {}
        self.prompts = {n: kinds.get(self.loaded[n].kind).prompt(self.loaded[n], self.sandbox)
                        for n in {r["task"] for r in need_reply}}
        try:
            jobs = [self._grade_row(r) for r in todo if r["status"] == "generated"]
            if need_reply:
                async with Endpoint(self.settings, transport=self.transport, on_request=self._log) as endpoint:
                    await asyncio.gather(*jobs, *(self._ask(endpoint, rows) for rows in self._requests(need_reply)))
            else:
                await asyncio.gather(*jobs)
        finally:
            if self.executor is not None:
                self.executor.close(cancel=True)

    def _log(self, record) -> None:
        cid, task, sample = record.tag
        self.store.add_request(self.batch_id, record, candidate_id=cid, task=task, sample=sample)

    def _requests(self, rows: list[dict]) -> list[list[dict]]:
        """The rows one request answers: up to samples_per_request (the OpenAI `n`) of one task, in order."""
        per, out = self.settings.samples_per_request, []
        for r in rows:
            if out and out[-1][0]["task"] == r["task"] and len(out[-1]) < per:
                out[-1].append(r)
            else:
                out.append([r])
        return out

    async def _ask(self, endpoint, rows: list[dict]) -> None:
        """One request for `rows` (one task); each choice of the answer becomes one row's candidate."""
        first = rows[0]
        task = self.loaded[first["task"]]
        answers = await endpoint.complete_each(self.prompts[task.name], len(rows),
                                               tag=(first["id"], task.name, first["sample"]))
        await asyncio.gather(*(self._receive(task, row, answer) for row, answer in zip(rows, answers)))

    async def _receive(self, task: tasks.Task, row: dict, answer) -> None:
        from loop.endpoint import InfraUnknown

        if isinstance(answer, InfraUnknown):
            self.counts["infra_unknown"] += 1
            self.store.update_candidate(row["id"], status=V.INFRA_UNKNOWN, reason=answer.reason,
                                        verdict=V.INFRA_UNKNOWN, notes=json.dumps([answer.detail]))
            self._tally(V.INFRA_UNKNOWN)
            return
        source = kinds.get(task.kind).extract(task, answer)
        self.counts["no_code"] += source is None
        sha = sha256(source) if source else None
        self.store.update_candidate(row["id"], status="generated", source=source, reply=answer, source_sha256=sha)
        if self.grade_now:
            await self._grade_row({**row, "source": source, "source_sha256": sha, "status": "generated"})
        elif self.progress:
            self.counts["done"] += 1
            self.progress({**self.counts, "verdicts": dict(self.verdicts)})

    async def _grade_row(self, row: dict) -> None:
        sha, cid = row["source_sha256"], row["id"]
        key = f"{row['task']}:{sha}"
        if sha and key in self.graded_sha:  # identical source already graded in this batch
            self._copy(self.graded_sha[key], cid)
            return
        if sha and key in self.inflight:
            await self.inflight[key]  # set once the original's grade is stored, not when it is computed
            if key in self.graded_sha:  # else the original failed, and the batch with it
                self._copy(self.graded_sha[key], cid)
            return
        name = row["task"]
        stored = asyncio.get_running_loop().create_future()
        if sha:
            self.inflight[key] = stored
        try:
            g = await asyncio.wrap_future(self.executor.submit(self.refs[name], row["source"], self.opts,
                                                              self.quarantine[name]))
            self.store.record_grade(cid, g)
            if sha:
                self.graded_sha[key] = cid
        finally:
            stored.set_result(None)
        self._tally(g.verdict)

    def _copy(self, original: int, duplicate: int) -> None:
        verdict = self.store.record_duplicate(duplicate, original)
        self._tally(verdict)
