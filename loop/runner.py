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


# generation -----------------------------------------------------------------
@dataclass
class Generated:
    batch_id: int
    candidates: int
    infra_unknown: int
    no_code: int


def endpoint_settings(cfg: Config, base_url: str | None = None, model: str | None = None,
                      concurrency: int | None = None):
    from loop.endpoint import EndpointSettings

    e = cfg.endpoint
    return EndpointSettings(
        base_url=base_url or e.base_url, model=model or e.model, api_key=cfg.api_key,
        temperature=e.temperature, max_tokens=e.max_tokens, samples_per_request=1,
        connect_timeout=e.connect_timeout, read_timeout=e.read_timeout, max_attempts=e.max_attempts,
        max_wait=e.max_wait, max_concurrency=concurrency or e.max_concurrency,
        requests_per_minute=e.requests_per_minute or None, tokens_per_minute=e.tokens_per_minute or None,
        key_hint=f"${e.api_key_env}" if e.api_key_env else None,
    )


def _prompt(task: tasks.Task, sandbox: SandboxConfig) -> list[dict]:
    """The repair prompt: description, contract, baseline and one demonstrated failing example only."""
    from loop.grading.grade import demonstrate
    from loop.prompts import render_repair

    example = demonstrate(task, sandbox) if task.example else None
    return render_repair(task_name=task.name, description=f"{task.description}\n\nBug report: {task.bug_report}",
                         language=task.language, contract=task.contract, baseline=task.baseline or "",
                         candidate_file=task.candidate_file, example=example)


def generate(cfg: Config, task_names: list[str], *, samples: int | None = None, base_url: str | None = None,
             model: str | None = None, concurrency: int | None = None, record: Path | None = None,
             replay_path: Path | None = None, db: Path | None = None) -> Generated:
    """Ask the endpoint for N samples per task and store every reply as it arrives."""
    import asyncio

    from loop.cassette import RecordingTransport, ReplayTransport
    from loop.endpoint import Endpoint, InfraUnknown
    from loop.prompts import extract_code

    sandbox = sandbox_config(cfg)
    names = task_names or cfg.loop.tasks or tasks.list_tasks(cfg.root)
    loaded = [tasks.load(cfg.root, n) for n in names]
    samples = samples or cfg.loop.samples
    settings = endpoint_settings(cfg, base_url, model, concurrency)
    transport = ReplayTransport(replay_path) if replay_path else None
    if record:
        import httpx

        transport = RecordingTransport(httpx.AsyncHTTPTransport(), record)
    prompts = {t.name: _prompt(t, sandbox) for t in loaded}
    store = RunStore(db or cfg.db_path)
    batch_id = store.start_batch("generate", seed=seeds.current(cfg.root), model=settings.model,
                                 endpoint=settings.base_url, config=cfg.snapshot(), k=cfg.loop.k,
                                 trials=cfg.loop.trials, suite=cfg.loop.suite, command="generate")
    ids = {(t.name, s): store.add_candidate(batch_id, t.name, s, source=None, status="pending", model=settings.model)
           for t in loaded for s in range(samples)}
    counts = {"infra": 0, "no_code": 0}

    def log(record_) -> None:
        task, sample = record_.tag
        store.add_request(batch_id, record_, candidate_id=ids[(task, sample)], task=task, sample=sample)

    async def one(endpoint, task: tasks.Task, sample: int) -> None:
        result = await endpoint.complete(prompts[task.name], n=1, tag=(task.name, sample))
        cid = ids[(task.name, sample)]
        if isinstance(result, InfraUnknown):
            counts["infra"] += 1
            store.update_candidate(cid, status="infra_unknown", reason=result.reason, verdict="infra_unknown",
                                   notes=result.detail)
            return
        reply = result.texts[0]
        source = extract_code(reply, task.language)
        counts["no_code"] += source is None
        store.update_candidate(cid, status="generated", source=source, reply=reply,
                               source_sha256=sha256(source) if source else None)

    async def main() -> None:
        async with Endpoint(settings, transport=transport, on_request=log) as endpoint:
            await asyncio.gather(*(one(endpoint, t, s) for t in loaded for s in range(samples)))

    try:
        asyncio.run(main())
    except BaseException:
        store.finish_batch(batch_id, "failed")
        store.close()
        raise
    store.finish_batch(batch_id)
    store.close()
    return Generated(batch_id, len(ids), counts["infra"], counts["no_code"])
