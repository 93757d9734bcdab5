"""One attempt in fresh sandboxes: goldens, named tests (baseline and candidate), relations and the sanitizer.

This path only runs things and collects replies; what they mean is decide.py's, as on the fork servers.
Expected values never enter the sandbox; every comparison happens in the parent, so a candidate can only
influence its grade through the values it returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.grading.model import Attempt, Check
from loop.kinds.function.decide import (
    Rejected,
    attempt_digest,
    call_args,
    fault_check,
    fault_reply,
    final_look,
    mutation_check,
    named_checks,
    outcome,
    reference_answer,
    relation_check,
    returned,
    value_of,
)
from loop.kinds.function.programs import Program, wire_args
from loop.kinds.task import Task, Test
from loop.oracles.engine import (
    NO_INPUT,
    ReferenceFailed,
    Returned,
    derived_inputs,
    in_part,
    json_repr,
    reference_limits,
    run_relations,
    trials_made,
)
from loop.sandbox import SandboxConfig, Worker, clean_env

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
    ran: dict = field(default_factory=dict)  # repeat -> the one case it ran of the named ones (decide.first_failure)


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


class _Run:
    """One attempt's processes and what they replied: the candidate's worker (a fresh one for split trials'
    share), the baseline's and the reference's, and the candidate's values in the order they came."""

    def __init__(self, plan: Plan, repeat: int, lane: int, rerun: bool, only: list[int] | None):
        self.plan, self.repeat, self.lane, self.rerun, self.only = plan, repeat, lane, rerun, only
        self.part = (repeat, plan.k) if plan.k > 1 else None
        self.start = time.monotonic()
        self.cand: Worker | None = None
        self.sides: list[RestartingWorker] = []
        self.values: list = []
        self.named: list = []  # the goldens' and named tests' values (what every repeat runs)
        self.output: tuple[bytes, bytes] | None = None  # split trials: the named checks' output alone

    def fresh_candidate(self) -> None:
        self.cand = self.plan.candidate.start(self.plan.cfg, repeat=self.lane,
                                              deadline=self.start + self.plan.task.limits.wall)

    def receive(self, msgs: list) -> list:
        """The candidate's replies, kept for the digest; a resource limit ends the attempt wherever it is hit."""
        for msg in msgs:
            if isinstance(msg, dict) and "resource" in msg:
                raise CandidateFault(V.RESOURCE, str(msg["resource"])[:300])
            self.values.append(value_of(msg) if isinstance(msg, dict) else msg)
        return msgs

    def named_checks(self) -> list[Check]:
        plan, task = self.plan, self.plan.task
        cases = [g.args for g in task.goldens] + [t.args for t in plan.tests]
        if self.only is not None:
            cases = [cases[i] for i in self.only]
        results = self.cand.call_many([wire_args(a) for a in cases])
        base = None
        if plan.baseline is not None:
            side = RestartingWorker(plan.baseline, plan.cfg, self.lane)
            self.sides.append(side)
            base = [_reply_or_fault(side, t.args) for t in plan.tests]
        checks, self.named = named_checks(task, plan.tests, results, base, plan.quarantined, self.only)
        self.values = list(self.named)
        return checks

    def close(self) -> tuple[int | None, list[Check]]:
        """Stop every process: the candidate's exit code, and a resource check if it wrote past its cap while
        closing (after its last reply: counted as the fork path counts it)."""
        for side in self.sides:
            side.close()
        if self.cand is None:
            return None, []
        self.cand.close()
        over = next((s for s in (self.cand.out, self.cand.err) if s.over), None)
        extra = [Check(V.RESOURCE, "fault", False, f"output exceeded {over.cap} bytes",
                       quarantined=V.RESOURCE in self.plan.quarantined)] if over is not None else []
        return self.cand.proc.returncode, extra

    def digest(self) -> str:
        out = (bytes(self.cand.out.data), bytes(self.cand.err.data)) if self.cand else (b"", b"")
        return attempt_digest(self.named, self.values[len(self.named):], self.output or out, self.output is not None)


def _reply_or_fault(side: RestartingWorker, args: tuple) -> dict:
    try:
        return side.call(args)
    except CandidateFault as fault:
        return {"raised": f"the baseline failed: {fault}"}


def run_attempt(plan: Plan, repeat: int, lane: int | None = None, only: list[int] | None = None) -> Attempt:
    """Repeat `repeat`'s attempt (its share of split trials) in its own environment, or once more in repeat
    `lane`'s (a timeout confirmed elsewhere: decide.timeouts_everywhere); a rerun counts no inputs. `only`:
    of the goldens and named tests, just these cases (positions; decide.first_failure)."""
    run = _Run(plan, repeat, repeat if lane is None else lane, rerun=lane is not None, only=only)
    checks: list[Check] = []
    status, reason, exit_code = V.PASS, None, None
    try:
        run.fresh_candidate()
        checks += run.named_checks()
        oracle = plan.task.oracle
        if plan.trials > 0 and oracle is not None and oracle.relations and plan.reference is not None:
            checks += _relations(run)
    except CandidateFault as fault:
        checks.append(fault_check(fault, plan.quarantined))
        exit_code = run.cand.proc.returncode if run.cand else None
    except (SandboxUnavailable, HarnessError) as exc:
        status, reason = V.INFRA_UNKNOWN, str(exc)
    finally:
        code, over = run.close()
        exit_code = exit_code if exit_code is not None else code
        if status == V.PASS and not any(c.check == V.RESOURCE for c in checks):
            checks += over
    return Attempt(repeat=repeat, status=status, reason=reason, exit_code=exit_code,
                   digest="" if status == V.INFRA_UNKNOWN else run.digest(),
                   duration=round(time.monotonic() - run.start, 4), seed=plan.seed, env=clean_env(run.lane),
                   checks=checks)


def _relations(run: _Run) -> list[Check]:
    """Differential fuzzing and the relations in this attempt's processes: the trial inputs the reference
    accepts, sent in one round trip (and a second round for derived inputs), then run_relations."""
    plan, oracle = run.plan, run.plan.task.oracle
    ref = RestartingWorker(plan.reference, plan.cfg, 0)  # the reference: always repeat 0's environment
    run.sides.append(ref)
    if run.part is not None:  # the named checks' output alone (the digest's), then a fresh process
        run.cand.close()
        run.output = bytes(run.cand.out.data), bytes(run.cand.err.data)
        run.fresh_candidate()
    made = trials_made(oracle, plan.seed, plan.trials)
    if not plan.ref_limits:
        plan.ref_limits = reference_limits(oracle, made, [json_repr(x) for x, _ in made if x is not NO_INPUT])
    trial_inputs = [x for t, (x, _) in enumerate(made) if x is not NO_INPUT and in_part(t, run.part)]
    counted = not run.rerun and (run.repeat == 0 or run.part is not None)  # each repeat adds its share of kept
    if run.repeat == 0 and not run.rerun:  # generated = kept + every discard, by reason
        rejected = sum(n for _, n in made)
        plan.inputs = {"generated": sum(x is not NO_INPUT for x, _ in made) + rejected, "kept": 0,
                       "contract": rejected, "reference_error": 0, "reference_timeout": 0}
    if oracle.discard_reference_failures:
        trial_inputs = accepted_inputs(plan, ref, trial_inputs, run.cand, counted=counted)
    elif counted:
        plan.inputs["kept"] += len(trial_inputs)
    if run.part is not None and not run.rerun:
        plan.shares[run.repeat] = trial_inputs  # a counterexample is replayed after those before it (confirm)
    prefetched: dict = {}
    _prefetch(run, trial_inputs, prefetched)
    if not oracle.argument_lists:  # second round: what the relations will ask next (reordered, fed back)
        derived = [d for x in trial_inputs if isinstance(hit := prefetched.get(json_repr(x)), dict) and "ok" in hit
                   for d in derived_inputs(oracle, x, outcome(hit)[1])]
        _prefetch(run, derived, prefetched)
    inputs: list = []

    def call(x) -> Returned:
        inputs.append(x)
        msg = prefetched.pop(json_repr(x), None)
        return returned(oracle, x, msg if msg is not None else run.receive([run.cand.call(wire_args(call_args(oracle, x)))])[0])

    try:
        failures = run_relations(oracle, call, _ref_caller(plan, ref), seed=plan.seed, trials=plan.trials, part=run.part)
    except ReferenceFailed as exc:
        raise HarnessError(f"the reference failed: {exc}") from None
    checks = [relation_check(f, plan.quarantined) for f in failures]
    if run.repeat == 0:
        plan.relation_inputs = inputs
    looks = mutation_check(oracle)
    if looks is not None and looks not in {c.check for c in checks}:
        checks += final_look(run.cand.call({"final": 1}), looks, plan.quarantined)
    return checks


def _ref_call(plan: Plan, ref: RestartingWorker, x) -> Returned | Rejected:
    """Ask the reference once per grade, timed, with the input's time limit (discarding oracles)."""
    key = json_repr(x)
    if key in plan.ref_cache:
        return plan.ref_cache[key]
    oracle = plan.task.oracle
    started = time.monotonic()
    try:
        msg = ref.call(call_args(oracle, x), limit=plan.ref_limits.get(key, oracle.reference_limit))
    except CandidateFault as fault:
        msg = fault_reply(fault)
    plan.ref_times[key] = time.monotonic() - started
    plan.ref_cache[key] = reference_answer(oracle, x, msg)
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


def _prefetch(run: _Run, xs: list, prefetched: dict) -> None:
    """Send the calls for many inputs at once (one pipelined round trip) and keep the replies."""
    oracle = run.plan.task.oracle
    todo = {}
    for x in xs:
        key = json_repr(x)
        if key not in prefetched:
            todo.setdefault(key, x)
    msgs = run.receive(run.cand.call_many([wire_args(call_args(oracle, x)) for x in todo.values()])) if todo else []
    prefetched.update(zip(todo, msgs))


def _ref_caller(plan: Plan, ref: RestartingWorker):
    """The reference's side of the relations: asked once per grade and input (plan.ref_cache)."""
    oracle = plan.task.oracle

    def call_ref(x) -> Returned:
        if oracle.discard_reference_failures:  # an input the reference rejects is skipped by run_relations
            hit = _ref_call(plan, ref, x)
            if isinstance(hit, Rejected):
                raise ReferenceFailed(f"the reference rejected {json_repr(x)[:160]}: {hit.why}")
            return hit
        key = json_repr(x)
        if key in plan.ref_cache:  # the reference is trusted and deterministic: ask it once per grade
            return plan.ref_cache[key]
        try:
            hit = reference_answer(oracle, x, ref.call((x,)))
        except CandidateFault as fault:
            raise HarnessError(f"the reference failed on {json_repr(x)}: {fault}") from None
        if isinstance(hit, Rejected):
            raise HarnessError(f"the reference {hit.why} on {json_repr(x)}")
        plan.ref_cache[key] = hit
        return hit

    return call_ref


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


