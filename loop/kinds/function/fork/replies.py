"""A fork server's replies -> the Attempts `run_attempt` gives: one grade in the making (`Item`) and what
one repeat's reply says about its goldens and named tests. The relations are fork.py's."""

from __future__ import annotations

import operator
from concurrent.futures import Future
from dataclasses import dataclass, field

from loop import verdicts as V
from loop.errors import CandidateFault
from loop.kinds.function.fork.trials import Table
from loop.grading.model import Attempt, Check, Options
from loop.kinds.function.attempt import digest, golden_check, outcome, test_check, test_outcome
from loop.kinds.task import Task, Test
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
    jobs: dict = field(default_factory=dict)     # repeat -> the candidate's job
    retimed: bool = False  # a timeout was run once more (at most one per grade)
    notes: list = field(default_factory=list)


def baseline_results(item: Item, reply: dict) -> list:
    n = len(item.task.selected(item.opts.suite))
    why = str(reply.get("detail", reply.get("build_error", reply.get("unavailable", "?"))))[:200]
    return reply.get("results") or [{"raised": "the baseline failed: " + why}] * n


def timed_out(reply: dict) -> bool:
    return reply.get("fault") == V.TIMEOUT


def attempt_of(item: Item, repeat: int, reply: dict, duration: float) -> tuple[Attempt, list | None]:
    """One repeat's reply -> its Attempt with the goldens' and named tests' checks (or the fault that ended
    it), and the replies to its fuzzed inputs (None when it has none to give); the relations are the
    caller's. Split trials: the digest covers what every repeat runs (the named checks' values)."""
    task, q, opts = item.task, item.quarantined, item.opts
    checks: list[Check] = []
    values: list = []
    tests = task.selected(opts.suite)
    base = item.base.get(repeat)
    cases = [(g, None) for g in task.goldens] + list(zip(tests, base or [None] * len(tests)))
    results = reply.get("results")
    trial = None
    try:
        if results is None and "fault" in reply:
            raise CandidateFault(str(reply["fault"]), str(reply.get("detail", "")))
        keys = item.table.share(opts.part(repeat))[0] if item.relations else ()
        if not (isinstance(results, list) and len(results) == len(cases) + len(keys)
                and set(map(type, results)) <= {dict}):
            raise CandidateFault(V.CRASH, "the result channel was corrupted")  # the candidate wrote on it
        for (case, base_msg), msg in zip(cases, results):
            if "resource" in msg:  # as in run_attempt: a resource fault ends the attempt
                raise CandidateFault(V.RESOURCE, str(msg["resource"]))
            ok, value = outcome(msg)
            values.append(msg.get("ok", {"raised": msg.get("raised")}))
            if isinstance(case, Test):
                base_out = test_outcome(case, base_msg) if base_msg is not None else None
                checks.append(test_check(task, case, ok, value, base_out, q))
            else:
                checks.append(golden_check(task, case, ok, value, q))
        trial = results[len(cases):]
    except CandidateFault as fault:
        checks.append(Check(fault.check, "fault", False, fault.detail, quarantined=fault.check in q))
    out, err = (str(reply.get(name, "")).encode() for name in ("output", "errors"))
    if opts.part(repeat) is not None:
        if not reply.get("common_output"):
            out = err = b""  # the output of the named checks alone is not known
    elif trial is not None:
        try:
            values += list(map(_OK, trial))  # every call returned (in C; else one at a time below)
        except KeyError:
            values += [m.get("ok", {"raised": m.get("raised")}) for m in trial]
    return (Attempt(repeat, V.PASS, None, None, digest(values, out, err), round(duration, 4), opts.seed,
                    clean_env(repeat), checks), trial)


_OK = operator.itemgetter("ok")
