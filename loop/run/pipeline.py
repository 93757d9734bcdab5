"""One batch's moving parts: the endpoint it asks, the executor that grades, the store every reply and grade
is committed to as it exists; identical sources share a grade, a stable_fail earns a feedback round, a budget
stops the asking.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from loop import executors, kinds, tasks
from loop import verdicts as V
from loop.config import Config, EndpointSettings
from loop.errors import ClusterError
from loop.grading.model import Options
from loop.run import feedback
from loop.run.candidates import Candidate
from loop.run.settings import Origin, endpoint_settings, make_transport, missing_key_warning
from loop.run.verified import load_verified_tasks, quarantined_checks
from loop.sandbox import SandboxConfig
from loop.store.db import RequestRows, RunStore


_TAG = ("candidate_id", "task", "sample", "round")  # what a request's tag says about its requests row


@dataclass
class BatchResult:
    batch_id: int
    candidates: int
    infra_unknown: int
    no_code: int
    verdicts: dict


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
    cluster: object = None  # a connected loop.executors.cluster.Cluster, or None to grade on this machine
    warn: Callable[[str], None] | None = None  # where a long wait is announced (the CLI's stderr)

    @classmethod
    def load(cls, config: Config, names: list[str], origin: Origin, recorded: dict | None, sandbox: SandboxConfig,
             grade_now: bool, warn: Callable[[str], None] | None, cluster: str | None = None,
             asks: bool = True, loaded: dict | None = None) -> _Job:
        """asks: the batch may ask the endpoint (a samples file's never does: no word then on a missing key);
        loaded: tasks already loaded, by name."""
        # First: a wrong or unreachable scheduler is said before minutes of polarity checks.
        connected = executors.connect(cluster, warn, config.cluster.connect_timeout) if cluster and grade_now else None
        quarantine = {n: frozenset(quarantined_checks(config, n)) for n in names}
        loaded = load_verified_tasks(config, names, sandbox, loaded) if grade_now else \
            {n: tasks.load(config.root, n) for n in names}
        settings = endpoint_settings(config, origin, recorded)
        message = missing_key_warning(config, settings, origin) if warn is not None and asks else None
        if message:
            warn(message)
        for task in loaded.values() if warn is not None and grade_now else ():
            why = kinds.unavailable(task)  # a missing toolchain: its grades say inconclusive, the batch goes on
            if why:
                warn(why)
        return cls(loaded, quarantine, settings, make_transport(origin, settings), connected, warn)


class _Pipeline:
    """One batch's moving parts: the async endpoint, the executor that grades (loop.executors), and the
    store. Each task's kind writes its prompt and finds the candidate in a reply."""

    def __init__(self, config: Config, store: RunStore, batch_id: int, job: _Job, sandbox: SandboxConfig,
                 opts: Options, grade_now: bool, progress: Callable[[dict], None] | None, workers: int,
                 budget=None, *, rounds: int = 1, started=None):
        self.config, self.store, self.batch_id, self.loaded = config, store, batch_id, job.loaded
        self.settings, self.transport, self.sandbox, self.opts = job.settings, job.transport, sandbox, opts
        self.quarantine, self.grade_now, self.progress, self.workers = job.quarantine, grade_now, progress, workers
        self.cluster = job.cluster
        self.executor = None
        self.counts = {"total": 0, "done": 0, "infra_unknown": 0, "no_code": 0}
        self.verdicts: dict[str, int] = {}
        self.shown: dict[str, int] = {}
        self.graded_sha: dict[str, int] = {}   # "task:sha:round" -> candidate id holding the grade
        self.inflight: dict[str, asyncio.Future] = {}
        self.budget = budget  # loop.run.budget.Budget, or None
        self.rounds = rounds
        self.started = started  # fork servers started while the tasks loaded (executors.prestart), or None
        self.endpoint = None  # open while the batch asks (follow-ups are asked from inside grading jobs)
        self.warn = job.warn
        self.requests = RequestRows(store, batch_id, lambda tag: dict(zip(_TAG, tag)))

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
        self.executor = (executors.for_batch(self.sandbox, self.opts, self.loaded, self.workers, self.cluster,
                                             self.started) if self.grade_now else None)
        self.prompts = {n: kinds.get(self.loaded[n].kind).prompt(self.loaded[n], self.sandbox)
                        for n in {r["task"] for r in need_reply + follow_ups}}
        try:
            jobs = (functools.partial(self._grade_row, r) for r in todo if r["status"] == "generated")
            if need_reply or follow_ups or self.rounds > 1:
                from loop.ask.endpoint import Endpoint  # httpx: imported only by a batch that asks

                on_wait = (lambda wait: self.warn(str(wait))) if self.warn is not None else None
                async with Endpoint(self.settings, transport=self.transport, on_request=self._log,
                                    on_send=self.requests.sent, on_wait=on_wait) as endpoint:
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
        if self.budget is not None:
            self.budget.charge(record.billed_prompt_tokens, record.billed_completion_tokens)
        self.requests.done(record)

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
        from loop.ask.endpoint import InfraUnknown

        if isinstance(answer, InfraUnknown):
            self.counts["infra_unknown"] += 1
            self.store.update_candidate(row["id"], status=V.INFRA_UNKNOWN, reason=answer.reason,
                                        verdict=V.INFRA_UNKNOWN, notes=json.dumps([answer.detail]))
            self._tally(V.INFRA_UNKNOWN, row["round"])
            return
        candidate = Candidate.from_reply(task, answer, row["model"])
        source, sha = candidate.source, candidate.sha256
        self.counts["no_code"] += source is None
        self.store.update_candidate(row["id"], status="generated", source=source, reply=answer, source_sha256=sha,
                                    finish_reason=getattr(answer, "finish_reason", None),
                                    truncated=int(getattr(answer, "truncated", False)))
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
            g = await asyncio.wrap_future(self.executor.submit(self.loaded[name], row["source"], opts,
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


# the batch loop ---------------------------------------------------------------
