"""One attempt: goldens, named tests (baseline and candidate), relations and the sanitizer, in fresh sandboxes.

Expected values never enter the sandbox; every comparison happens here, in the parent, so a
candidate can only influence its grade through the values it returns.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.grading.model import Attempt, Check
from loop.grading.triage import transition
from loop.kinds.function.programs import Program, wire_args
from loop.kinds.task import Task, Test
from loop.oracles.engine import (
    CandidateRaised,
    ReferenceFailed,
    Returned,
    NO_INPUT,
    RelationFailure,
    derived_inputs,
    in_part,
    json_repr,
    reference_limits,
    run_relations,
    same_value,
    trials_made,
)
from loop.oracles.fuzz import equivalent_to
from loop.oracles.oracle import Oracle
from loop.sandbox import SandboxConfig, Worker, clean_env
from loop.sandbox.inside.codec import dec, enc

VOLATILE = re.compile(r"(total time|pid[=: ]|elapsed|\d+(\.\d+)?\s*(ms|us|µs|ns)\b)", re.I)
SANITIZER_SAMPLE = 40


@dataclass
class Plan:
    """Everything an attempt needs, built once per grade."""

    task: Task
    cfg: SandboxConfig
    candidate: Program
    baseline: Program | None
    reference: Program | None
    sanitized: Program | None
    tests: list[Test]
    seed: int
    trials: int
    quarantined: set[str] = field(default_factory=set)
    k: int = 0  # > 0: the trials are split across k repeats (Options.part); 0: every repeat runs them all
    relation_inputs: list = field(default_factory=list)  # repeat 0's, sampled by the sanitizer gate
    ref_cache: dict = field(default_factory=dict)
    ref_times: dict = field(default_factory=dict)  # json_repr(x) -> the reference's measured seconds
    ref_limits: dict = field(default_factory=dict)  # json_repr(x) -> its time limit (engine.reference_limits)
    inputs: dict | None = None  # what happened to the generated inputs (repeat 0; the same for every repeat)
    shares: dict = field(default_factory=dict)  # split trials: repeat -> the inputs its process ran, in order


def digest(values: list, stdout: bytes, stderr: bytes) -> str:
    """A short sha256 of what the candidate produced, minus timing/pid lines that track the scheduler."""
    def clean(blob: bytes) -> str:
        return "\n".join(l for l in blob.decode(errors="replace").splitlines() if not VOLATILE.search(l))

    h = hashlib.sha256(json.dumps(values, sort_keys=True).encode())
    h.update(b"\0" + clean(stdout).encode() + b"\0" + clean(stderr).encode())
    return h.hexdigest()[:12]


class RestartingWorker:
    """Calls into one program (the baseline or the reference) through a sandboxed worker, started on the
    first call and started again after a fault, so one bad input does not end the program's side."""

    def __init__(self, program: Program, cfg: SandboxConfig, repeat: int):
        self.program, self.cfg, self.repeat = program, cfg, repeat
        self.worker: Worker | None = None

    def call(self, args: tuple, limit: float | None = None, before: list = ()) -> dict:
        """One call's reply; `before`: wire arguments of calls made first, in the same process (their
        replies dropped), pipelined with it."""
        if self.worker is None or self.worker.dead:
            if self.worker is not None:
                self.worker.close()
            deadline = time.monotonic() + self.program.task.limits.wall
            self.worker = self.program.start(self.cfg, repeat=self.repeat, deadline=deadline)
        if limit is not None:  # a per-call time limit (differential fuzzing's reference filter)
            self.worker.deadline = time.monotonic() + limit
        return self.worker.call_many([*before, wire_args(args)])[-1]

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


def decode(wire):
    """A wire value from the sandbox, decoded totally: anything malformed is the candidate's crash."""
    try:
        return dec(wire)
    except Exception as exc:  # noqa: BLE001 - the candidate may write anything on its result pipe
        raise CandidateFault(V.CRASH, f"the result channel was corrupted ({type(exc).__name__})") from None


def arg_after(oracle: Oracle | None, x, msg: dict):
    """The arguments' state after a call, as Returned.arg_after holds it, from the reply's "args" (the
    positions the call left changed, with their encoding then), decoded totally: for an oracle of argument
    lists, None when every argument is as it went in, else the list of them all; for one argument, its state."""
    raw = msg.get("args")
    lists = oracle is not None and oracle.argument_lists
    n = len(x) if lists and isinstance(x, (list, tuple)) else 1
    if raw is None:
        return None if lists else x
    if not (isinstance(raw, list) and raw and all(isinstance(p, list) and len(p) == 2 and type(p[0]) is int
                                                  and 0 <= p[0] < n for p in raw)):
        raise CandidateFault(V.CRASH, "the result channel was corrupted (the arguments' state)")
    moved = {i: decode(w) for i, w in raw}
    if not lists:
        return moved.get(0, x)
    return [moved.get(i, a) for i, a in enumerate(x)]


def outcome(msg: dict) -> tuple[bool, Any]:
    """(returned?, value or "raised: ..."). The reply comes from the sandbox, where the candidate can write
    anything on the result pipe: a malformed one is the candidate's crash, never loop's."""
    if "ok" in msg:
        return True, decode(msg["ok"])
    return False, "raised: " + str(msg.get("raised", msg.get("resource", "?")))[:500]


def run_attempt(plan: Plan, repeat: int, lane: int | None = None) -> Attempt:
    """Repeat `repeat`'s attempt (its share of split trials) in its own environment, or once more in repeat
    `lane`'s (a timeout confirmed elsewhere: grade.py); a rerun counts no inputs."""
    task = plan.task
    start = time.monotonic()
    rerun = lane is not None
    lane = repeat if lane is None else lane
    env = clean_env(lane)
    checks: list[Check] = []
    values: list = []
    cand: Worker | None = None
    sides: list[RestartingWorker] = []
    status, reason, exit_code = V.PASS, None, None
    part = (repeat, plan.k) if plan.k > 1 else None
    common = None  # how many values every repeat produces (split trials: the digest covers only those)
    common_output = None

    def call_candidate(args: tuple) -> tuple[bool, Any, dict]:
        return receive(cand.call(wire_args(args)))

    def receive(msg: dict) -> tuple[bool, Any, dict]:
        """(returned?, value or why, the reply): the arguments' state is read from the reply by whoever
        knows the input (arg_after)."""
        if "resource" in msg:
            raise CandidateFault(V.RESOURCE, str(msg["resource"])[:300])
        values.append(msg.get("ok", {"raised": msg.get("raised")}))
        ok, value = outcome(msg)
        return ok, value, msg

    try:
        cand = plan.candidate.start(plan.cfg, repeat=lane, deadline=start + task.limits.wall)
        for g in task.goldens:
            ok, value, _ = call_candidate(g.args)
            checks.append(golden_check(task, g, ok, value, plan.quarantined))
        base = RestartingWorker(plan.baseline, plan.cfg, lane) if plan.baseline else None
        if base:
            sides.append(base)
        for t in plan.tests:
            ok, value, _ = call_candidate(t.args)
            base_out = None
            if base is not None:
                try:
                    base_out = test_outcome(t, base.call(t.args))
                except CandidateFault:
                    base_out = V.FAIL
            checks.append(test_check(task, t, ok, value, base_out, plan.quarantined))
        inputs: list = []
        oracle = task.oracle
        common = len(values)
        if plan.trials > 0 and oracle is not None and oracle.relations and plan.reference is not None:
            ref = RestartingWorker(plan.reference, plan.cfg, 0)  # the reference: always repeat 0's environment
            sides.append(ref)
            if part is not None:  # the named checks' output alone (the digest's), then a fresh process
                cand.close()
                common_output = bytes(cand.out.data), bytes(cand.err.data)
                cand = plan.candidate.start(plan.cfg, repeat=lane, deadline=start + task.limits.wall)
            prefetched = {}
            made = trials_made(oracle, plan.seed, plan.trials)
            if not plan.ref_limits:
                plan.ref_limits = reference_limits(oracle, made, [json_repr(x) for x, _ in made if x is not NO_INPUT])
            trial_inputs = [x for t, (x, _) in enumerate(made) if x is not NO_INPUT and in_part(t, part)]
            counted = not rerun and (repeat == 0 or part is not None)  # each repeat adds its share of kept
            if repeat == 0 and not rerun:  # generated = kept + every discard, by reason
                rejected = sum(n for _, n in made)
                plan.inputs = {"generated": sum(x is not NO_INPUT for x, _ in made) + rejected, "kept": 0,
                               "contract": rejected, "reference_error": 0, "reference_timeout": 0}
            if oracle.discard_reference_failures:
                trial_inputs = accepted_inputs(plan, ref, trial_inputs, cand, counted=counted)
            elif counted:
                plan.inputs["kept"] += len(trial_inputs)
            if part is not None and not rerun:
                plan.shares[repeat] = trial_inputs  # a counterexample is replayed after those before it (confirm)
            _prefetch(oracle, cand, receive, trial_inputs, prefetched)
            if not oracle.argument_lists:
                # Second round: what the relations will ask next (reordered inputs, outputs fed back).
                derived = [d for x in trial_inputs if (hit := prefetched.get(json_repr(x))) and hit[0]
                           for d in derived_inputs(oracle, x, hit[1])]
                _prefetch(oracle, cand, receive, derived, prefetched)
            checks += _relations(plan, call_candidate, ref, inputs, prefetched, part)
            if repeat == 0:
                plan.relation_inputs = inputs
            looks = mutation_check(oracle)
            if looks is not None and looks not in {c.check for c in checks}:
                checks += _final_look(cand.call({"final": 1}), looks, plan.quarantined)
    except CandidateFault as fault:
        checks.append(Check(fault.check, "fault", False, fault.detail, quarantined=fault.check in plan.quarantined))
        exit_code = cand.proc.returncode if cand else None
    except (SandboxUnavailable, HarnessError) as exc:
        status, reason = V.INFRA_UNKNOWN, str(exc)
    finally:
        for side in sides:
            side.close()
        if cand is not None:
            cand.close()
            exit_code = exit_code if exit_code is not None else cand.proc.returncode
            over = next((s for s in (cand.out, cand.err) if s.over), None)
            if over is not None and status == V.PASS and not any(c.check == V.RESOURCE for c in checks):
                # written after the last reply, while it was closing: counted as the fork path counts it
                checks.append(Check(V.RESOURCE, "fault", False, f"output exceeded {over.cap} bytes",
                                    quarantined=V.RESOURCE in plan.quarantined))
    out = bytes(cand.out.data) if cand else b""
    err = bytes(cand.err.data) if cand else b""
    return Attempt(
        repeat=repeat, status=status, reason=reason, exit_code=exit_code,
        digest=("" if status == V.INFRA_UNKNOWN else digest(values, out, err) if common_output is None
                else digest(values[:common], *common_output)),
        duration=round(time.monotonic() - start, 4), seed=plan.seed, env=env, checks=checks,
    )


def golden_check(task: Task, g, ok: bool, value, quarantined) -> Check:
    passed, detail = golden_matches(task, ok, value, g.expected)
    name = f"golden:{g.case}"
    return Check(name, "golden", passed, detail, input=_one(g.args), expected=g.expected, actual=value,
                 quarantined=name in quarantined)


def test_outcome(t: Test, msg: dict) -> str:
    """pass or fail: what one reply to a named test means (used for the baseline's side)."""
    ok, value = outcome(msg)
    return V.PASS if ok and same_value(value, t.expected) else V.FAIL


def test_check(task: Task, t: Test, ok: bool, value, base_out: str | None, quarantined) -> Check:
    """A named test's check: the candidate's outcome, the baseline's, and the transition between them.
    A task whose oracle has an output equivalence (ties: several right answers) accepts any of them."""
    equivalent = task.oracle.equivalent if task.oracle is not None else None
    passed = ok and (same_value(value, t.expected) or equivalent_to(equivalent, list(t.args), value, t.expected))
    cand_out = V.PASS if passed else V.FAIL
    name = f"test:{t.name}"
    return Check(
        name, "test", passed,
        "" if passed else f"expected {show(t.expected)}, got {show(value)}",
        test_kind=t.test_kind, baseline=base_out, candidate=cand_out, transition=transition(base_out, cand_out),
        input=_one(t.args), expected=t.expected, actual=value, quarantined=name in quarantined,
    )


def _call_args(oracle: Oracle, x) -> tuple:
    """An oracle of argument lists (ARGS = True) calls fn(*x); else x is the one argument."""
    return tuple(x) if oracle.argument_lists else (x,)


class _Rejected:
    """plan.ref_cache marker: the reference rejected this input (raised, or ran out of time)."""

    def __init__(self, why: str, reason: str):
        self.why, self.reason = why, reason  # reason: reference_error | reference_timeout


def _ref_call(plan: Plan, ref: RestartingWorker, x) -> Returned | _Rejected:
    """Ask the reference once per grade, timed, with the input's time limit (discarding oracles)."""
    key = json_repr(x)
    if key in plan.ref_cache:
        return plan.ref_cache[key]
    oracle = plan.task.oracle
    started = time.monotonic()
    reason = "reference_error"
    try:
        msg = ref.call(_call_args(oracle, x), limit=plan.ref_limits.get(key, oracle.reference_limit))
        ok, value = outcome(msg)
        after = arg_after(oracle, x, msg) if ok else None
    except CandidateFault as fault:
        ok, value = False, str(fault)
        if fault.check == V.TIMEOUT:
            reason = "reference_timeout"
    plan.ref_times[key] = time.monotonic() - started
    plan.ref_cache[key] = Returned(value, after) if ok else _Rejected(value, reason)
    return plan.ref_cache[key]


def accepted_inputs(plan: Plan, ref: RestartingWorker, inputs: list, cand: Worker, counted: bool = True) -> list:
    """Keep the inputs the reference accepts within its per-input limit (a slow input costs only itself),
    count every discarded one by reason (`counted`: this repeat's share counts), then give the candidate
    max(TIME_FLOOR, TIME_FACTOR x the reference's time on the kept ones) for the batch."""
    oracle = plan.task.oracle
    kept = []
    counts = {"reference_error": 0, "reference_timeout": 0}
    for x in inputs:
        hit = _ref_call(plan, ref, x)
        if isinstance(hit, Returned):
            kept.append(x)
        else:
            counts[hit.reason] += 1
    if plan.inputs is not None and counted:
        counts["kept"] = len(kept)
        for name, n in counts.items():
            plan.inputs[name] += n
    spent = sum(plan.ref_times.get(json_repr(x), 0.0) for x in kept)
    need = max(oracle.time_floor, oracle.time_factor * spent)
    cand.deadline = max(cand.deadline, time.monotonic() + need)
    return kept


def _prefetch(oracle: Oracle, cand: Worker, receive, xs: list, prefetched: dict) -> None:
    """Send the calls for many inputs at once (one pipelined round trip) and keep the outcomes."""
    todo, seen = [], set()
    for x in xs:
        key = json_repr(x)
        if key not in prefetched and key not in seen:
            seen.add(key)
            todo.append((key, x))
    msgs = cand.call_many([wire_args(_call_args(oracle, x)) for _, x in todo]) if todo else []
    for (key, _), msg in zip(todo, msgs):
        prefetched[key] = receive(msg)


def _one(args: tuple):
    return args[0] if len(args) == 1 else list(args)


def show(value) -> str:
    """A value as JSON for a failure's detail; total, since candidates choose the values."""
    try:
        return json_repr(enc(value))
    except (TypeError, ValueError, RecursionError):
        return f"<unprintable {type(value).__name__}>"


def golden_matches(task: Task, ok: bool, value, expected) -> tuple[bool, str]:
    if not ok:
        return False, str(value)
    want = task.canonical(expected)  # trusted: the goldens are checked when the task loads
    try:
        got = task.canonical(value)
        if bool(got == want):
            return True, ""
        return False, f"expected {show(want)}, got {show(got)}"
    except Exception as exc:  # any value the candidate returns is data: a failure, never loop's crash
        return False, f"malformed output: {type(exc).__name__}: {str(exc)[:200]}"


def _ref_caller(plan: Plan, ref: RestartingWorker):
    """The reference's side of the relations: asked once per grade and input (plan.ref_cache)."""
    oracle = plan.task.oracle

    def call_ref(x) -> Returned:
        if oracle.discard_reference_failures:  # an input the reference rejects is skipped by run_relations
            hit = _ref_call(plan, ref, x)
            if isinstance(hit, _Rejected):
                raise ReferenceFailed(f"the reference rejected {json_repr(x)[:160]}: {hit.why}")
            return hit
        key = json_repr(x)
        if key in plan.ref_cache:  # the reference is trusted and deterministic: ask it once per grade
            return plan.ref_cache[key]
        try:
            msg = ref.call((x,))
            ok, value = outcome(msg)
            after = arg_after(oracle, x, msg) if ok else None
        except CandidateFault as fault:
            raise HarnessError(f"the reference failed on {json_repr(x)}: {fault}") from None
        if not ok:
            raise HarnessError(f"the reference {value} on {json_repr(x)}")
        plan.ref_cache[key] = Returned(value, after)
        return plan.ref_cache[key]

    return call_ref


def _relations(plan: Plan, call_candidate, ref: RestartingWorker, inputs: list, prefetched: dict,
               part: tuple[int, int] | None) -> list[Check]:
    oracle = plan.task.oracle

    def call(x) -> Returned:
        inputs.append(x)
        hit = prefetched.pop(json_repr(x), None)
        ok, value, msg = hit if hit is not None else call_candidate(_call_args(oracle, x))
        if not ok:
            raise CandidateRaised(str(value))
        return Returned(value, arg_after(oracle, x, msg))

    try:
        failures = run_relations(oracle, call, _ref_caller(plan, ref), seed=plan.seed, trials=plan.trials, part=part)
    except ReferenceFailed as exc:
        raise HarnessError(f"the reference failed: {exc}") from None
    return [relation_check(f, plan.quarantined) for f in failures]


def relation_check(f: RelationFailure, quarantined) -> Check:
    name = f"relation:{f.relation}"
    detail = (f"{f.reason} (seed {f.seed}, trial {f.trial}); minimal input {json_repr(f.minimal)}; "
              f"original input {json_repr(f.original)}")
    return Check(name, "relation", False, detail, input=f.original, minimal=f.minimal,
                 seed=f.seed, trial=f.trial, actual=f.reason, quarantined=name in quarantined)


def mutation_check(oracle: Oracle) -> str | None:
    """The check name of the oracle's first relation on the arguments' state (input_not_mutated,
    arguments_agree), or None: no final look at the arguments is needed."""
    return next((f"relation:{r.name}" for r in oracle.relations if r.reads_arguments), None)


def _final_look(msg: dict, name: str, quarantined) -> list[Check]:
    """The worker's last look at every argument it was called with, once the attempt is over: a change
    made after the call returned (from a thread, say) fails the oracle's argument check like one made during it."""
    changed = msg.get("changed")
    if not (isinstance(changed, list) and all(isinstance(c, list) and len(c) in (2, 3) for c in changed)):
        raise CandidateFault(V.CRASH, "the result channel was corrupted (final look)")
    if not changed:
        return []
    before, after = (str(x)[:160] for x in changed[0][:2])
    which = changed[0][2] if len(changed[0]) == 3 and type(changed[0][2]) is int else 0
    return [Check(name, "relation", False,
                  f"argument {which + 1} changed after the call returned: from {before} to {after}",
                  quarantined=name in quarantined)]


def sanitizer_gate(plan: Plan) -> Check:
    """The sanitizer build on the goldens, the named tests and a sample of repeat 0's relation inputs: a
    gate run once per grade whose check joins every attempt (a deterministic finding fails them all)."""
    inputs = plan.relation_inputs
    cases = ([g.args for g in plan.task.goldens] + [t.args for t in plan.tests]
             + [(x,) for x in inputs[:: max(1, len(inputs) // SANITIZER_SAMPLE)]])
    try:
        worker = plan.sanitized.start(plan.cfg, repeat=0)
    except CandidateFault as fault:  # it would not even load under the sanitizer
        return Check(V.SANITIZER, "sanitizer", False, f"{fault.check}: {fault.detail}"[:2000],
                     quarantined=V.SANITIZER in plan.quarantined)
    try:
        worker.call_many([wire_args(args) for args in cases])  # one pipelined round trip, as for relations
        return Check(V.SANITIZER, "sanitizer", True)
    except CandidateFault as fault:
        report = worker.err.data.decode(errors="replace")
        lines = [l for l in report.splitlines() if "runtime error" in l or "ERROR:" in l or "SUMMARY" in l]
        if not lines and fault.check == V.TIMEOUT:
            raise
        detail = "\n".join((lines or report.splitlines() or [fault.detail])[:6])
        return Check(V.SANITIZER, "sanitizer", False, detail[:2000], quarantined=V.SANITIZER in plan.quarantined)
    finally:
        worker.close()


