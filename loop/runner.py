"""The runner: turns a command's intent into grades and rows (grade one file, replay one candidate).

It calls tasks, grading and the store; it never prints (the CLI does) and raises LoopErrors.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path

from loop import kinds, seeds, tasks
from loop import verdicts as V
from loop.config import Config
from loop.errors import CandidateError, CassetteError, ResumeError, TaskError
from loop.grading.forkserver import ForkPool
from loop.grading.grade import Options, grade, sha256
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
            problems = kinds.get(task.kind).polarity(task, sandbox)
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


# the batch loop ---------------------------------------------------------------
@dataclass
class BatchResult:
    batch_id: int
    candidates: int
    infra_unknown: int
    no_code: int
    verdicts: dict


@dataclass(frozen=True)
class Source:
    """Where candidates come from: an endpoint (live or a cassette)."""

    base_url: str | None = None
    model: str | None = None
    concurrency: int | None = None
    record: Path | None = None
    replay: Path | None = None


def endpoint_settings(cfg: Config, src: Source, recorded: dict | None = None):
    """The settings a batch asks with: the flags, else what the batch recorded (on resume), else config.toml.
    The key always comes from the environment, never from a record."""
    from loop.endpoint import EndpointSettings

    e = cfg.endpoint
    settings = EndpointSettings(
        base_url=src.base_url or e.base_url, model=src.model or e.model, api_key=cfg.api_key,
        temperature=e.temperature, max_tokens=e.max_tokens, samples_per_request=1,
        connect_timeout=e.connect_timeout, read_timeout=e.read_timeout, max_attempts=e.max_attempts,
        max_wait=e.max_wait, max_concurrency=src.concurrency or e.max_concurrency,
        requests_per_minute=e.requests_per_minute or None, tokens_per_minute=e.tokens_per_minute or None,
        key_hint=f"${e.api_key_env}" if e.api_key_env else None,
        adaptive=e.adaptive and src.replay is None,  # a cassette has no limit to learn
        limit_state=str(cfg.resolve(e.limit_state)) if e.limit_state not in ("", "memory") else e.limit_state,
    )
    if recorded:
        keep = {f.name for f in fields(EndpointSettings)} - {"api_key", "key_hint", "base_url", "model", "adaptive",
                                                            "limit_state"}
        if src.concurrency:
            keep.discard("max_concurrency")
        settings = replace(settings, **{k: v for k, v in recorded.items() if k in keep})
    return settings


def effective_settings(cfg: Config, settings, src: Source, opts: Options, samples: int | None, workers: int) -> dict:
    """What a batch records as its configuration: the settings it used, never the key."""
    endpoint = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "api_key"}
    prices = {"prompt": cfg.endpoint.prompt_price, "completion": cfg.endpoint.completion_price}
    return {"config_file": str(cfg.path), "endpoint": endpoint, "prices": prices,
            "replay": str(src.replay) if src.replay else None, "record": str(src.record) if src.record else None,
            "loop": {"k": opts.k, "trials": opts.trials, "suite": opts.suite, "seed": opts.seed, "samples": samples,
                     "workers": workers}}


def resumed_source(batch: dict, src: Source) -> tuple[Source, dict]:
    """Where a resumed batch asks: the endpoint, model and request settings it recorded, unless a flag says
    otherwise. Another base URL is allowed (the same model served elsewhere); another model is refused."""
    try:
        recorded = json.loads(batch["config"] or "{}")
    except ValueError:
        recorded = {}
    endpoint = recorded.get("endpoint") if isinstance(recorded.get("endpoint"), dict) else {}
    if src.model and batch["model"] and src.model != batch["model"]:
        raise ResumeError(f"batch {batch['id']} was made with model {batch['model']!r}: resuming it with "
                             f"--model {src.model!r} would credit {src.model!r}'s replies to {batch['model']!r}; "
                             "start a new batch instead")
    if src.base_url or src.replay or src.record:
        return Source(src.base_url or batch["endpoint"], batch["model"], src.concurrency, src.record, src.replay), endpoint
    replay = Path(recorded["replay"]) if recorded.get("replay") else None
    return Source(None if replay else batch["endpoint"], batch["model"], src.concurrency, None, replay), endpoint


def default_source(cfg: Config, src: Source) -> Source:
    """The shipped config replays the demo cassette; any explicit endpoint or cassette flag wins."""
    if src.replay or src.record or src.base_url or cfg.endpoint.record:
        record = src.record or (cfg.resolve(cfg.endpoint.record) if cfg.endpoint.record else None)
        return Source(src.base_url, src.model, src.concurrency, record, src.replay)
    if cfg.endpoint.replay and not os.environ.get("LOOP_BASE_URL"):
        path = cfg.resolve(cfg.endpoint.replay)
        if not path.is_file():
            raise CassetteError(f"{cfg.path}: key 'endpoint.replay': cassette {path} not found")
        return Source(None, src.model, src.concurrency, None, path)
    return src


def _local(url: str) -> bool:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def make_transport(src: Source):
    from loop.cassette import RecordingTransport, ReplayTransport

    if src.replay:
        return ReplayTransport(src.replay)
    if src.record:
        import httpx

        return RecordingTransport(httpx.AsyncHTTPTransport(), src.record)
    return None


def _prompt(task: tasks.Task, sandbox: SandboxConfig) -> list[dict]:
    """The repair prompt: description, contract, baseline and one demonstrated failing example only."""
    from loop.grading.grade import demonstrate
    from loop.prompts import render_repair

    example = demonstrate(task, sandbox) if task.example else None
    return render_repair(task_name=task.name, description=f"{task.description}\n\nBug report: {task.bug_report}",
                         language=task.language, contract=task.contract, baseline=task.baseline or "",
                         candidate_file=task.candidate_file, example=example)


_JOB_TASKS: dict[tuple, tasks.Task] = {}


def _die_with_parent() -> None:
    """Grading workers (and through --die-with-parent, their sandboxes) die when loop is killed."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _grade_job(root: str, task_name: str, source: str | None, sandbox: SandboxConfig, opts: Options,
               quarantined: frozenset) -> Grade:
    """Runs in a grading worker process: loads the task once per process, grades one source."""
    key = (root, task_name)
    if key not in _JOB_TASKS:
        _JOB_TASKS[key] = tasks.load(Path(root), task_name)
    return grade(_JOB_TASKS[key], source, sandbox, opts, quarantined)


def run_batch(cfg: Config, task_names: list[str], *, src: Source, samples: int | None = None, k: int | None = None,
              trials: int | None = None, rotate_seed: bool = False, resume: int | None = None, db: Path | None = None,
              grade_now: bool = True, progress: Callable[[dict], None] | None = None,
              workers: int | None = None, command: str | None = None,
              warn: Callable[[str], None] | None = None) -> BatchResult:
    """Generate candidates and grade each as it arrives (generation and grading overlap).

    Every reply and every grade is committed as soon as it exists; `resume` finishes a batch after a
    crash without asking the endpoint again for what was received and without duplicate rows.
    """
    sandbox = sandbox_config(cfg)
    store = RunStore(db or cfg.db_path)
    try:
        if resume is not None:
            batch = store.batch(resume)
            batch_id, seed = resume, batch["seed"]
            rows = store.candidates(batch_id)
            names = sorted({r["task"] for r in rows})
            src, recorded = resumed_source(batch, src)
            if src.base_url and src.base_url != batch["endpoint"]:
                store.note_resume(batch_id, src.base_url, command)
        else:
            src, recorded = default_source(cfg, src), None
            names = task_names or cfg.loop.tasks or tasks.list_tasks(cfg.root)
            rows = None
            if rotate_seed or cfg.loop.seed_policy == "rotate":
                old, new = seeds.rotate(cfg.root)
                store.record_rotation(old, new)
            seed = seeds.current(cfg.root)
        quarantine = {n: frozenset(quarantined_checks(cfg, n)) for n in names}
        loaded = {n: prepare(cfg, n, sandbox) if grade_now else tasks.load(cfg.root, n) for n in names}
        settings = endpoint_settings(cfg, src, recorded)
        if warn is not None and not settings.api_key and not src.replay and not _local(settings.base_url):
            hint = f"${cfg.endpoint.api_key_env} or $LOOP_API_KEY" if cfg.endpoint.api_key_env else "$LOOP_API_KEY"
            warn(f"no API key in {hint}; sending requests to {settings.base_url} without Authorization")
        transport = make_transport(src)  # a missing or malformed cassette fails before anything is written
        opts = Options(suite=cfg.loop.suite, seed=seed, trials=cfg.loop.trials if trials is None else trials,
                       k=k or cfg.loop.k)
        workers = workers or cfg.loop.concurrency or os.cpu_count() or 1
        if rows is None:
            samples = samples or cfg.loop.samples
            batch_id = store.start_batch("run" if grade_now else "generate", seed=seed, model=settings.model,
                                         endpoint=settings.base_url, k=opts.k, trials=opts.trials, suite=opts.suite,
                                         config=effective_settings(cfg, settings, src, opts, samples, workers),
                                         sandboxed=int(sandbox.enabled),
                                         command=command or ("run" if grade_now else "generate"))
            for n in names:
                for s in range(samples):
                    store.add_candidate(batch_id, n, s, source=None, status="pending", model=settings.model)
            rows = store.candidates(batch_id)
        else:
            opts = Options(suite=batch["suite"] or opts.suite, seed=seed,
                           trials=batch["trials"] if batch["trials"] is not None else opts.trials,
                           k=batch["k"] or opts.k)
        pipeline = _Pipeline(cfg, store, batch_id, loaded, settings, transport, sandbox, opts, quarantine,
                             grade_now, progress, workers)
        try:
            pipeline.run(rows)
        except CassetteError:
            if resume is None:  # the cassette does not belong to this batch: leave no trace of it
                store.delete_batch(batch_id)
                del batch_id
            raise
        store.finish_batch(batch_id)
        return BatchResult(batch_id, len(rows), pipeline.counts["infra_unknown"], pipeline.counts["no_code"],
                           dict(pipeline.verdicts))
    except BaseException:
        if "batch_id" in locals():
            store.finish_batch(batch_id, "failed")
        raise
    finally:
        store.close()


class _Pipeline:
    """One batch's moving parts: the async endpoint, the graders, and the store.

    Graders: a process pool running `grade` (each attempt in fresh sandboxes), or, when a grade is k=1
    without relations, fork servers for the Python tasks (the same verdicts, a fork per candidate
    instead of a sandbox start: see loop/grading/forkserver.py).
    """

    def __init__(self, cfg, store, batch_id, loaded, settings, transport, sandbox, opts, quarantine,
                 grade_now, progress, workers):
        self.cfg, self.store, self.batch_id, self.loaded = cfg, store, batch_id, loaded
        self.settings, self.transport, self.sandbox, self.opts = settings, transport, sandbox, opts
        self.quarantine, self.grade_now, self.progress, self.workers = quarantine, grade_now, progress, workers
        self.counts = {"total": 0, "done": 0, "infra_unknown": 0, "no_code": 0}
        self.verdicts: dict[str, int] = {}
        self.graded_sha: dict[str, int] = {}   # "task:sha" -> candidate id holding the grade
        self.inflight: dict[str, asyncio.Future] = {}

    def run(self, rows: list[dict]) -> None:
        self.counts["total"] = len(rows)
        for r in rows:
            if r["verdict"] is not None:
                self._tally(r["verdict"])
                if r["source_sha256"] and r["duplicate_of"] is None:
                    self.graded_sha[f"{r['task']}:{r['source_sha256']}"] = r["id"]
        asyncio.run(self._main([r for r in rows if r["verdict"] is None]))

    def _tally(self, verdict: str) -> None:
        self.counts["done"] += 1
        self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        if self.progress:
            self.progress({**self.counts, "verdicts": dict(self.verdicts)})

    async def _main(self, todo: list[dict]) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from loop.endpoint import Endpoint

        need_reply = [r for r in todo if r["status"] == "pending"]
        self.pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_die_with_parent) if self.grade_now else None
        fast = self.grade_now and self.opts.k == 1 and not self.opts.trials
        self.forks = ForkPool(self.sandbox, self.workers) if fast and any(
            self.loaded[r["task"]].language == "python" for r in todo) else None
        self.prompts = {n: _prompt(self.loaded[n], self.sandbox) for n in {r["task"] for r in need_reply}}
        try:
            jobs = [self._grade_row(r) for r in todo if r["status"] == "generated"]
            if need_reply:
                async with Endpoint(self.settings, transport=self.transport, on_request=self._log) as endpoint:
                    await asyncio.gather(*jobs, *(self._ask(endpoint, r) for r in need_reply))
            else:
                await asyncio.gather(*jobs)
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=True, cancel_futures=True)
            if self.forks is not None:
                self.forks.close(cancel=True)

    def _log(self, record) -> None:
        cid, task, sample = record.tag
        self.store.add_request(self.batch_id, record, candidate_id=cid, task=task, sample=sample)

    async def _ask(self, endpoint, row: dict) -> None:
        from loop.endpoint import InfraUnknown
        from loop.prompts import extract_code

        task = self.loaded[row["task"]]
        result = await endpoint.complete(self.prompts[task.name], n=1, tag=(row["id"], task.name, row["sample"]))
        if isinstance(result, InfraUnknown):
            self.counts["infra_unknown"] += 1
            self.store.update_candidate(row["id"], status=V.INFRA_UNKNOWN, reason=result.reason,
                                        verdict=V.INFRA_UNKNOWN, notes=json.dumps([result.detail]))
            self._tally(V.INFRA_UNKNOWN)
            return
        reply = result.texts[0]
        source = extract_code(reply, task.language)
        self.counts["no_code"] += source is None
        sha = sha256(source) if source else None
        self.store.update_candidate(row["id"], status="generated", source=source, reply=reply, source_sha256=sha)
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
            await self.inflight[key]
            self._copy(self.graded_sha[key], cid)
            return
        task = self.loaded[row["task"]]
        if self.forks is not None and task.language == "python":
            fut = asyncio.wrap_future(self.forks.submit(task, row["source"], self.opts, self.quarantine[task.name]))
        else:
            fut = asyncio.get_running_loop().run_in_executor(
                self.pool, _grade_job, str(self.cfg.root), row["task"], row["source"], self.sandbox, self.opts,
                self.quarantine[row["task"]])
        if sha:
            self.inflight[key] = fut
        g = await fut
        self.store.record_grade(cid, g)
        if sha:
            self.graded_sha[key] = cid
        self._tally(g.verdict)

    def _copy(self, original: int, duplicate: int) -> None:
        verdict = self.store.record_duplicate(duplicate, original)
        self._tally(verdict)
