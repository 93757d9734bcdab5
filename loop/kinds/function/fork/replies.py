"""A fork server's jobs and replies -> Attempts: one grade in the making (`Item`), each repeat's job (its
share of the trials and of the shared tests; the short jobs after a failed repeat 0) and what one repeat's
reply says about its goldens and named tests (decided by decide.py, as on the fresh-sandbox path). The
relations are pool.py's."""

from __future__ import annotations

import operator
from concurrent.futures import Future
from dataclasses import dataclass, field

from loop import verdicts as V
from loop.errors import CandidateFault
from loop.kinds.function.fork.server import job_for
from loop.kinds.function.fork.trials import Table
from loop.grading.model import Attempt, Check, Options
from loop.kinds.function.decide import (attempt_digest, common_cases, common_values, fault_check, named_checks, shares,
                                        value_of)
from loop.kinds.function.decide import first_failure as decide_first_failure
from loop.kinds.task import Task
from loop.sandbox import clean_env


@dataclass(eq=False)
class Item:
    """One candidate's grade in the making: k repeats' replies, the baseline's per repeat, the reference's."""

    future: Future
    task: Task
    source: str
    opts: Options
    quarantined: frozenset
    relations: bool = False  # differential fuzzing runs (applies() and trials > 0)
    started: float = 0.0
    waiting: int = 0  # replies still to come (candidate and baseline, every repeat)
    table: Table | None = None
    base: dict = field(default_factory=dict)     # repeat -> the baseline's replies to the named tests
    replies: dict = field(default_factory=dict)  # repeat -> the candidate job's reply
    jobs: dict = field(default_factory=dict)     # repeat -> the candidate's job (whose reply stands)
    ran: dict = field(default_factory=dict)      # repeat -> the cases its job ran: its share (decide.shares) or
    #                                              the one case of its short job (see first_failure)
    full: dict = field(default_factory=dict)     # repeat -> (its whole job, its cases), while its short job is out
    retimed: bool = False  # a timeout was run once more (at most one per grade)
    notes: list = field(default_factory=list)

    def cases(self) -> list:
        """The arguments of the goldens, then the named tests (decide.shares's positions index this)."""
        return [g.args for g in self.task.goldens] + [x.args for x in self.task.selected(self.opts.suite)]

    def common(self) -> list:
        """The arguments of the cases every repeat's job runs first (with shared tests, the unshared ones)."""
        tests = self.task.selected(self.opts.suite)
        own = shares(self.task, tests, self.opts.part(0))
        every = self.cases()
        return every if own is None else [every[i] for i in own[:common_cases(self.task, tests)]]


def baseline_results(item: Item, reply: dict) -> list:
    n = len(item.task.selected(item.opts.suite))
    why = str(reply.get("detail", reply.get("build_error", reply.get("unavailable", "?"))))[:200]
    return reply.get("results") or [{"raised": "the baseline failed: " + why}] * n


def timed_out(reply: dict) -> bool:
    return reply.get("fault") == V.TIMEOUT


def attempt_of(item: Item, repeat: int, reply: dict, duration: float) -> tuple[Attempt, list | None]:
    """One repeat's reply -> its Attempt with the goldens' and named tests' checks (or the fault that ended
    it), decided as on every path (decide.py), and the replies to its fuzzed inputs (None when it has none to
    give); the relations are the caller's."""
    task, q, opts = item.task, item.quarantined, item.opts
    tests = task.selected(opts.suite)
    results = reply.get("results")
    checks, named, trial = [], [], None
    try:
        if results is None and "fault" in reply:
            raise CandidateFault(str(reply["fault"]), str(reply.get("detail", "")))
        keys = item.table.share(opts.part(repeat))[0] if item.relations else ()
        only = item.ran.get(repeat)
        n = len(task.goldens) + len(tests) if only is None else len(only)
        if not (isinstance(results, list) and len(results) == n + len(keys) and set(map(type, results)) <= {dict}):
            raise CandidateFault(V.CRASH, "the result channel was corrupted")  # the candidate wrote on it
        checks, named = named_checks(task, tests, results[:n], item.base.get(repeat), q, only)
        trial = results[n:]
    except CandidateFault as fault:
        checks.append(fault_check(fault, q))
    out, err = (str(reply.get(name, "")).encode() for name in ("output", "errors"))
    split = opts.part(repeat) is not None
    if split and not reply.get("common_output"):
        out = err = b""  # the output of the named checks alone is not known
    values = [] if split or trial is None else _trial_values(trial)
    named = common_values(task, tests, item.ran.get(repeat), named)
    return (Attempt(repeat, V.PASS, None, None, attempt_digest(named, values, (out, err), split), round(duration, 4),
                    opts.seed, clean_env(repeat), checks), trial)


def first_failure(item: Item, reply: dict) -> int | None:
    """decide.first_failure from repeat 0's reply."""
    tests = item.task.selected(item.opts.suite)
    results = reply.get("results")
    only = item.ran.get(0)  # its cases, where shared tests are split across the repeats
    if not isinstance(results, list):
        return None
    try:
        n = len(item.task.goldens) + len(tests) if only is None else len(only)
        named, _ = named_checks(item.task, tests, results[:n], None, item.quarantined, only)
    except CandidateFault:
        return None
    i = decide_first_failure(item.task, named)
    return i if i is None or only is None else only[i]


def _trial_values(trial: list) -> list:
    try:
        return list(map(_OK, trial))  # every call returned (in C; else one at a time below)
    except KeyError:
        return list(map(value_of, trial))


_OK = operator.itemgetter("ok")


def failing_named(item: Item, reply: dict, cases: list[int]) -> list[Check]:
    """The failing checks of a job that ran these named cases (decide.confirm_shared's rerun); [] when no server
    answered (not confirmed either way: the repeat keeps what it had)."""
    if "unavailable" in reply:
        return []
    try:
        if not isinstance(reply.get("results"), list):
            raise CandidateFault(str(reply.get("fault", V.CRASH)), str(reply.get("detail", reply.get("build_error", ""))))
        checks, _ = named_checks(item.task, item.task.selected(item.opts.suite), reply["results"], None,
                                 item.quarantined, cases)
    except CandidateFault as fault:
        checks = [fault_check(fault, item.quarantined)]
    return [c for c in checks if not c.passed and c.decides]


def repeat_job(item: Item, repeat: int, tests: list, common: int | None = None) -> dict:
    """Repeat r's job: these named tests' arguments, then its fuzzed inputs (all, or its share); `common`: how
    many of the named tests every repeat runs (their output alone is the digest's)."""
    task, t, part = item.task, item.table, item.opts.part(repeat)
    if t is None:
        return job_for(task, item.source, tests)
    if part is None:
        return job_for(task, item.source, tests, t.wires, t.need)
    _, wires, need = t.share(part)
    return job_for(task, item.source, tests, wires, limit=need, common=len(tests) if common is None else common)


def short_jobs(item: Item, case: int | None) -> None:
    """Repeat 0 failed `case`: repeats 1..k-1 first run that case and their share of the trials; the whole
    job only where that does not decide the repeat (decide.first_failure, short_run_decides)."""
    if case is not None:
        tests, n = item.cases(), common_cases(item.task, item.task.selected(item.opts.suite))
        for r in range(1, item.opts.k):
            own = item.ran.get(r)  # its shared tests too: each runs somewhere, the grade names every failure
            cases = [case] + ([i for i in own[n:] if i != case] if own else [])
            item.full[r] = item.jobs[r], own
            item.ran[r], item.jobs[r] = cases, repeat_job(item, r, [tests[i] for i in cases], 1)
