"""Differential fuzzing on fork servers, decided in the parent: the reference's side once per (task, seed,
trials), each repeat's candidate values checked by the task's own relations, exactly as `run_attempt` would.

The fast path runs the candidate on every kept input in one fork-server job per repeat; the relations then
run here, in the parent, on those values (never in a process the candidate touched). Whatever the values
alone cannot settle with the slow path's result (a relation that fails and must be shrunk, an input the
relations ask for that was not sent, a fault mid-batch) returns None: the caller grades that candidate
on the slow path instead, so a verdict never depends on which path found it.

The reference's side (a `Table`) is the same for every candidate of a task under one seed: a pool given a
folder remembers it there between runs (`tables_path` names what the key covers), so a second samples file
for the same tasks neither generates inputs nor runs the reference again.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import tempfile
import threading
from dataclasses import dataclass, field, fields
from pathlib import Path

from loop import verdicts as V
from loop.cachedir import key as cache_key
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.kinds.function.decide import Rejected, call_args, reference_answer, returned
from loop.kinds.function.confirm import fails_again
from loop.kinds.function.programs import wire_args
from loop.kinds.task import Task
from loop.oracles.engine import (
    NO_INPUT,
    CandidateRaised,
    ReferenceFailed,
    Returned,
    by_key,
    json_repr,
    reference_limits,
    run_relations,
    trials_made,
)
from loop.oracles.oracle import Oracle
from loop.sandbox import SandboxConfig


def applies(task: Task, trials: int) -> bool:
    """Does a grade of this task with `trials` run relations at all (as run_attempt decides)?"""
    if trials <= 0 or task.oracle_path is None or task.reference is None:
        return False  # decided without loading relations.py (164 imports for a HumanEval screen at --trials 0)
    return bool(task.oracle.relations)


def fast(oracle: Oracle) -> bool:
    """Relations the parent can decide from one batch of values: argument-list inputs (no second round of
    derived inputs; the arguments' state after each call, a change after it returned included, comes with
    its reply: worker.fold_late) and reference failures discarded (the reference's answers are data, not
    harness errors)."""
    return oracle.argument_lists and oracle.discard_reference_failures


class _Miss(BaseException):
    """A relation asked for a value the batch did not hold (BaseException: no relation's `except Exception`
    may swallow it)."""


@dataclass
class Table:
    """The reference's side for one (task, seed, trials): its answers by input, the inputs the candidate is
    run on (kept, each once, in trial order), the input accounting and the candidate's time for the batch."""

    answers: dict          # json_repr(x) -> Returned | Rejected
    keys: list[str]        # the candidate's inputs, as keys
    wires: list            # ... and as wire arguments
    inputs: dict           # generated, kept, contract, reference_error, reference_timeout
    need: float            # seconds the candidate gets for the batch (the attempt's wall clock if longer)
    own: list              # the reference's replies on `keys`: a candidate replying the same gets its verdict
    made: list = field(default_factory=list)  # every trial's (input or NO_INPUT, proposals rejected)
    own_holds: bool | None = None  # do the relations hold on the reference's own replies? (asked once)
    secs: dict = field(default_factory=dict)   # key -> the reference's seconds on it (kept keys)
    trial_keys: list = field(default_factory=list)  # per trial: its input's key, None where it has none
    floor: float = 5.0    # the oracle's time_floor and time_factor: a share's time limit (see share)
    factor: float = 20.0
    path: Path | None = None  # where it is remembered between runs (tables_path), if anywhere

    def __post_init__(self) -> None:
        self.own_signature = signature(self.own)
        self._shares: dict = {}
        self._lock = threading.Lock()

    def __getattr__(self, name: str):
        """A remembered table's cold part, unpickled on first use: a candidate that replies as the reference
        did never needs it (a second run's 164 tables load in 0.07 s instead of 0.4 s)."""
        if name not in COLD or "_lock" not in self.__dict__:
            raise AttributeError(name)
        with self._lock:
            if "cold" in self.__dict__:
                cold = pickle.loads(self.__dict__.pop("cold"))
                cold["made"] = [(x if has else NO_INPUT, n) for has, x, n in cold["made"]]
                self.__dict__.update(cold)
        return self.__dict__[name]

    def share(self, part: tuple[int, int] | None) -> tuple[list, list, float]:
        """(keys, wires, seconds) a repeat runs: every kept input (part None) or repeat r's share of the
        trials (engine.in_part), each distinct input once. Its time limit follows the work: the oracle's
        factor times the reference's own time on those inputs, never less than the floor's share of it (1/k of
        the oracle's floor, at least 1 s), as CPU time (job_for); a timeout is confirmed by one more run."""
        if part is None:
            return self.keys, self.wires, self.need
        if part not in self._shares:
            r, k = part
            wire = dict(zip(self.keys, self.wires))
            keys = list(dict.fromkeys(key for key in self.trial_keys[r::k] if key in wire))
            spent = sum(self.secs.get(key, 0.0) for key in keys)
            floor = max(1.0, self.floor / k)  # a share of the batch: the floor shrinks with it (1 s at k=5)
            self._shares[part] = (keys, [wire[key] for key in keys], max(floor, self.factor * spent))
        return self._shares[part]

    def remember(self) -> None:
        """Write the table where the next run with the same key finds it (renamed into place whole; a cache
        that cannot be written costs the next run the work, nothing else)."""
        if self.path is None:
            return
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in COLD and f.name != "path"}
        cold = {name: getattr(self, name) for name in COLD}
        cold["made"] = [(x is not NO_INPUT, None if x is NO_INPUT else x, n) for x, n in self.made]
        state.update(own_signature=self.own_signature, cold=pickle.dumps(cold, protocol=pickle.HIGHEST_PROTOCOL))
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".table-")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError, RecursionError):
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)


def tables_path(folder: Path, task: Task, seed: int, trials: int, cfg: SandboxConfig) -> Path:
    """Where the table for (task content, seed, trials) is remembered: the key also covers the sandbox
    settings, loop's code and the interpreter, everything the reference's answers and the inputs depend on."""
    return folder / f"{cache_key(task.digest, seed, trials, repr(cfg), sys.version)}.pickle"


COLD = frozenset({"answers", "made", "own"})  # a remembered table's parts read only when needed
KEEP_TABLES = 2000  # about 12 batches of 164 HumanEval tasks, each seed's tables 30 MB in all


def prune(folder: Path, keep: int = KEEP_TABLES) -> None:
    """Delete all but the `keep` most recently used tables (a rotated seed leaves its tables unused)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.stat().st_mtime, reverse=True)
        for entry in entries[keep:]:
            os.unlink(entry.path)
    except OSError:
        pass


def remembered(path: Path) -> Table | None:
    """The table an earlier run wrote at `path` (None when there is none or it cannot be read). The folder
    is the user's own cache, never visible in a sandbox."""
    try:
        with open(path, "rb") as fh:
            state = pickle.load(fh)
        os.utime(path)  # recently used: kept by prune
        table = object.__new__(Table)  # its cold part (answers, made, own) is read on first use: __getattr__
        names = {f.name for f in fields(Table)} - COLD - {"path"}
        if set(state) != names | {"own_signature", "cold"}:
            return None
        table.__dict__.update(state, path=path, _shares={}, _lock=threading.Lock())
        return table
    except Exception:  # noqa: BLE001 - a stale or torn file is a miss: the table is made again
        return None


class Pending:
    """Generated inputs waiting for the reference's answers (the reference job's payload and bookkeeping)."""

    def __init__(self, task: Task, seed: int, trials: int):
        oracle = task.oracle
        self.task, self.oracle = task, oracle
        self.made = trials_made(oracle, seed, trials)
        self.xs = [x for x, _ in self.made if x is not NO_INPUT]
        self.rejected = sum(n for _, n in self.made)
        self.xkeys = [json_repr(x) for x in self.xs]  # each input's key, made once
        self.wires = {}  # key -> wire arguments, each distinct input once, in trial order
        for key, x in zip(self.xkeys, self.xs):
            if key not in self.wires:
                self.wires[key] = wire_args(call_args(oracle, x))
        self.keys = list(self.wires)
        limits = reference_limits(oracle, self.made, self.xkeys)
        self.limits = [limits[key] for key in self.keys]

    def job(self) -> dict:
        return reference_job(self.task, list(self.wires.values()), self.limits)

    def table(self, reply: dict) -> Table | None:
        """The reference job's reply -> the Table (None when the reference did not run as a whole: the
        slow path then decides, and reports, what went wrong)."""
        results = reply.get("results")
        if not (isinstance(results, list) and len(results) == len(self.keys)):
            return None
        answers, secs = {}, {}
        xs = dict(zip(self.xkeys, self.xs))
        for key, msg in zip(self.keys, results):
            secs[key] = float(msg.get("secs", 0.0)) if isinstance(msg, dict) else 0.0
            answers[key] = reference_answer(self.oracle, xs[key], msg)
        counts = {"reference_error": 0, "reference_timeout": 0}
        kept, spent = 0, 0.0
        for key in self.xkeys:
            hit = answers[key]
            if isinstance(hit, Returned):
                kept += 1
                spent += secs[key]
            else:
                counts[hit.reason] += 1
        inputs = {"generated": len(self.xs) + self.rejected, "kept": kept, "contract": self.rejected, **counts}
        replies = dict(zip(self.keys, results))
        keys = [key for key in self.keys if isinstance(answers[key], Returned)]  # distinct, in trial order
        wires = [self.wires[key] for key in keys]
        floor, factor = self.oracle.time_floor, self.oracle.time_factor
        xkeys = iter(self.xkeys)
        trial_keys = [None if x is NO_INPUT else next(xkeys) for x, _ in self.made]
        own = [{f: replies[k][f] for f in ("ok", "args") if f in replies[k]} for k in keys]
        return Table(answers, keys, wires, inputs, max(floor, factor * spent), own,
                     self.made, secs={k: secs[k] for k in keys}, trial_keys=trial_keys, floor=floor, factor=factor)


def reference_job(task: Task, wires: list, limits: list[float] | None = None) -> dict:
    """A job running the trusted reference on these inputs, each within its own time limit (`limits`, one
    per input: engine.reference_limits), else within the oracle's per-input limit."""
    limit, wall = task.oracle.reference_limit, float(task.limits.wall)
    job = {"source": task.reference, "file": task.candidate_file, "entry": task.entry_point, "tests": wires,
           "limit": limit, "wall": wall, "timeout": wall + limit * len(wires), "memory_mb": task.limits.memory_mb,
           "fsize_mb": task.limits.fsize_mb}
    if limits is not None and any(x != limit for x in limits):
        job.update(limits=limits, timeout=wall + sum(limits))
    return job


def signature(msgs: list) -> str | None:
    """The replies as one string, exact (json: True is not 1, -0.0 is not 0.0; a raised error or any other
    field is part of it); None when they do not encode. One C-level dumps: no Python loop per reply."""
    try:
        return json.dumps(msgs)
    except (TypeError, ValueError, RecursionError):
        return None


def holds(oracle: Oracle, table: Table, msgs: list, *, seed: int, trials: int) -> bool:
    """True when every relation holds on the candidate's replies `msgs` (one per table.keys, in order):
    the slow path would add no relation check. False when it must decide: a relation fails (its
    counterexample is shrunk there), asks for a value not in the batch, or a reply is a fault.

    run_relations is a function of the values alone (seeded), so replies identical to the reference's own
    get the reference's answer, asked once per table."""
    mine = signature(msgs)
    if mine is not None and mine == table.own_signature:
        if table.own_holds is None:
            table.own_holds = _holds(oracle, table, table.own, seed, trials)
            table.remember()
        return table.own_holds
    return _holds(oracle, table, msgs, seed, trials)


def _holds(oracle: Oracle, table: Table, msgs: list, seed: int, trials: int) -> bool:
    if not all(isinstance(msg, dict) and "resource" not in msg for msg in msgs):
        return False
    got = dict(zip(table.keys, msgs))
    decided: dict = {}  # key -> Returned or CandidateRaised, each reply decided once (decide.returned)

    def call(x, key: str) -> Returned:
        if key not in decided:
            if key not in got:
                raise _Miss
            try:
                decided[key] = returned(oracle, x, got[key])
            except CandidateRaised as raised:
                decided[key] = raised
            except CandidateFault:
                raise _Miss from None  # a malformed reply or state: the search decides (and reports) it
        hit = decided[key]
        if isinstance(hit, CandidateRaised):
            raise CandidateRaised(*hit.args)
        return hit

    def call_ref(x, key: str) -> Returned:
        hit = table.answers.get(key)
        if hit is None:
            raise _Miss
        if isinstance(hit, Rejected):
            raise ReferenceFailed(f"the reference rejected {key[:160]}: {hit.why}")
        return hit

    try:
        return not run_relations(oracle, by_key(call, is_ref=False), by_key(call_ref, is_ref=True), seed=seed,
                                 trials=trials, made=table.made or None)
    except _Miss:
        return False


class Asker:
    """The values run_relations asks for on the fork path: the batch's replies first, then fork-server jobs
    for any other input (a shrink step's next candidates in one job each side, announced by the engine's
    prefetch hook). `ask(wires)` runs the candidate, `ask_ref(wires)` the reference, in fresh forks."""

    def __init__(self, oracle: Oracle, table: Table, got: dict, ask, ask_ref, refs: dict | None = None):
        self.oracle, self.table, self.ask, self.ask_ref = oracle, table, ask, ask_ref
        self.got = dict(got)  # key -> the candidate's reply message (or a failed job's reply)
        self.refs = {} if refs is None else refs  # key -> the reference's answer, beyond the table's

    def fetch(self, xs: list) -> None:
        cand, ref = {}, {}
        for x in xs:
            key = json_repr(x)
            if key not in self.got:
                cand.setdefault(key, x)
            if key not in self.table.answers and key not in self.refs:
                ref.setdefault(key, x)
        for todo, ask, keep in ((ref, self.ask_ref, self._keep_ref), (cand, self.ask, self._keep)):
            if todo:
                reply = ask([wire_args(call_args(self.oracle, x)) for x in todo.values()])
                results = reply.get("results")
                if isinstance(results, list) and len(results) == len(todo):
                    for (key, x), msg in zip(todo.items(), results):
                        keep(key, x, msg)
                elif len(todo) == 1:  # a job of one input that failed as a whole: that input's answer
                    keep(*next(iter(todo.items())), {"job": reply})

    def _keep(self, key: str, x, msg) -> None:
        self.got[key] = msg

    def _keep_ref(self, key: str, x, msg) -> None:
        if isinstance(msg, dict) and "job" in msg:
            raise HarnessError(f"the reference's job failed: {str(msg['job'])[:300]}")
        self.refs[key] = reference_answer(self.oracle, x, msg)

    def call(self, x, key: str) -> Returned:
        if key not in self.got:
            self.fetch([x])
        msg = self.got[key]
        if isinstance(msg, dict) and "job" in msg:
            job = msg["job"]
            if "unavailable" in job:
                raise SandboxUnavailable(str(job["unavailable"]))
            raise CandidateFault(str(job.get("fault", V.CRASH)), str(job.get("detail", job.get("build_error", ""))))
        return returned(self.oracle, x, msg)

    def call_ref(self, x, key: str) -> Returned:
        hit = self.table.answers.get(key) or self.refs.get(key)
        if hit is None:
            self.fetch([x])
            hit = self.refs[key]
        if isinstance(hit, Rejected):
            raise ReferenceFailed(f"the reference rejected {key[:160]}: {hit.why}")
        return hit

    def search(self, *, seed: int, trials: int, part=None, skip=None, on_trial=None) -> list:
        """run_relations on these values: the relations' failures, each shrunk (CandidateFault and
        SandboxUnavailable propagate, as from a worker on the slow path)."""
        return run_relations(self.oracle, by_key(self.call, is_ref=False), by_key(self.call_ref, is_ref=True),
                             seed=seed, trials=trials, made=self.table.made or None, part=part, skip=skip,
                             on_trial=on_trial, prefetch=self.fetch)

    def fails_again(self, check, keys: list[str] | None = None, before: list = ()) -> bool:
        """Does a counterexample fail again here (a fresh Asker: fresh forks, nothing from the batch)? With
        `keys`, its original input runs after the wires `before` (the named tests a share's job runs first)
        and those inputs of the table, in one job (confirm.preceding)."""
        if keys is not None:
            wire = dict(zip(self.table.keys, self.table.wires))
            wires = [*before, *(wire[key] for key in keys), wire_args(call_args(self.oracle, check.input))]
            reply = self.ask(wires)
            results = reply.get("results")
            ok = isinstance(results, list) and len(results) == len(wires)
            self.got[json_repr(check.input)] = results[-1] if ok else {"job": reply}
        else:
            self.fetch([check.minimal, check.input])
        return fails_again(self.oracle, check, by_key(self.call, is_ref=False), by_key(self.call_ref, is_ref=True),
                           replayed=keys is not None)
