"""Split trials: a relation's counterexample, found by one repeat, is run again in fresh processes under
every repeat's environment, so a deterministic failure fails every repeat and one that comes and goes is flaky.

The rule (`confirm`) is the same on every path; how a fresh process is asked is the path's own (the slow
path here, the fork servers in executors/fork.py).
"""

from __future__ import annotations

from dataclasses import replace

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.grading.model import Attempt, Check
from loop.kinds.function.attempt import Plan, RestartingWorker, _call_args, _ref_caller, arg_after, outcome
from loop.oracles.engine import CandidateRaised, Returned, recheck
from loop.oracles.oracle import Oracle


def fails_again(oracle: Oracle, check: Check, call, call_ref) -> bool:
    """Does a relation's counterexample fail again with these calls (a fresh process)? Its minimal input,
    then its original one; a fault of the candidate on either is a failure too."""
    name = check.check.removeprefix("relation:")
    try:
        return any(recheck(oracle, name, x, call, call_ref, seed=check.seed, trial=check.trial) is not None
                   for x in (check.minimal, check.input))
    except CandidateFault:
        return True


def confirm(attempts: list[Attempt], k: int, again) -> list[str]:
    """Split trials: each relation's counterexample, found in one repeat, is run again in fresh processes,
    under its own repeat's environment and every other's (`again(check, repeat) -> failed?`). A repeat where
    it fails again fails with the same check, so a deterministic failure is stable_fail as when every
    repeat ran every trial, and one that comes and goes is flaky. Nothing runs where every attempt already
    fails (the verdict cannot change). Returns the grade's notes.

    One counterexample per relation goes on: the earliest trial's (the fork path searches the trials in
    order; the slow path, repeat by repeat, finds one per share). Another repeat's own is kept only where
    that one does not fail again there."""
    def failing(a: Attempt) -> bool:
        return a.status == V.INFRA_UNKNOWN or any(not c.passed and c.decides for c in a.checks)

    if k < 2:
        return []
    first: dict[str, tuple[int, Check]] = {}
    own: dict[tuple[str, int], Check] = {}
    for a in attempts:
        for c in a.checks:
            if c.category == "relation" and not c.passed and c.decides and c.trial is not None:
                own[c.check, a.repeat] = c
                if c.check not in first or c.trial < first[c.check][1].trial:
                    first[c.check] = (a.repeat, c)
    for a in attempts:
        a.checks = [c for c in a.checks if own.get((c.check, a.repeat)) is not c or first[c.check][0] == a.repeat]
    if all(map(failing, attempts)):
        return []
    notes = []
    for name, (origin, check) in first.items():
        for a in attempts:
            try:
                if a.repeat == origin:
                    if not again(check, origin):
                        notes.append(f"{name}: its counterexample did not fail again in a fresh process under "
                                     f"repeat {origin}'s environment")
                elif not failing(a):
                    a.checks.append(replace(check) if again(check, a.repeat) else own.get((name, a.repeat)))
                    a.checks = [c for c in a.checks if c is not None]
            except (SandboxUnavailable, HarnessError) as exc:  # not confirmed either way: not the candidate's
                if a.repeat != origin:
                    a.status, a.reason, a.digest = V.INFRA_UNKNOWN, f"confirming {name}: {exc}", ""
    return notes


def recheck_in_fresh_processes(plan: Plan, check: Check, repeat: int) -> bool:
    """fails_again on the slow path: the candidate and the reference in fresh sandboxes of that repeat."""
    oracle = plan.task.oracle
    cand = RestartingWorker(plan.candidate, plan.cfg, repeat)
    ref = RestartingWorker(plan.reference, plan.cfg, 0)  # the reference: always repeat 0's environment

    def call(x) -> Returned:
        msg = cand.call(_call_args(oracle, x))
        if "resource" in msg:
            raise CandidateFault(V.RESOURCE, str(msg["resource"])[:300])
        ok, value = outcome(msg)
        if not ok:
            raise CandidateRaised(str(value))
        return Returned(value, arg_after(oracle, x, msg))

    try:
        return fails_again(oracle, check, call, _ref_caller(plan, ref))
    finally:
        cand.close()
        ref.close()
