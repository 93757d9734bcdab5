"""Split trials: a relation's counterexample, found by one repeat, is run again in fresh processes under
every repeat's environment, so a deterministic failure fails every repeat and one that comes and goes is flaky.
A counterexample that does not fail alone is run again after the calls that preceded it in its share's
process (in order, one process): failing then, it is a deterministic bug of that sequence (a memo, a global),
and the sequence is run in every repeat's environment as the counterexample alone would be.

The rule (`confirm`) is the same on every path; how a fresh process is asked is the path's own (the slow
path here, the fork servers in fork/pool.py).
"""

from __future__ import annotations

from dataclasses import replace

from loop import verdicts as V
from loop.errors import CandidateFault, HarnessError, SandboxUnavailable
from loop.grading.model import Attempt, Check
from loop.kinds.function.attempt import Plan, RestartingWorker, _ref_caller
from loop.kinds.function.decide import call_args, returned
from loop.kinds.function.programs import wire_args
from loop.oracles.engine import Returned, json_repr, recheck
from loop.oracles.oracle import Oracle

SHOWN = 600  # characters of a replayed sequence a check's detail shows


def fails_again(oracle: Oracle, check: Check, call, call_ref, replayed: bool = False) -> bool:
    """Does a relation's counterexample fail again with these calls (a fresh process)? Its minimal input,
    then its original one; a fault of the candidate on either is a failure too. `replayed`: the calls
    before it in its share ran first, so only the original input (the one they preceded) is asked."""
    name = check.check.removeprefix("relation:")
    try:
        return any(recheck(oracle, name, x, call, call_ref, seed=check.seed, trial=check.trial) is not None
                   for x in ((check.input,) if replayed else (check.minimal, check.input)))
    except CandidateFault:
        return True


def preceding(share: list[str], check: Check) -> list[str]:
    """The keys (json_repr) of the distinct inputs a share's process ran before the check's original input,
    in order: the sequence a counterexample that does not fail alone is replayed after."""
    key = json_repr(check.input)
    if key not in share:
        return []
    return list(dict.fromkeys(share[: share.index(key)]))


def _with_sequence(check: Check, keys: list[str], origin: int) -> Check:
    shown = "[" + ",".join(keys + [json_repr(check.input)]) + "]"
    shown = shown if len(shown) <= SHOWN else shown[: SHOWN // 3] + " ... " + shown[-2 * SHOWN // 3:]
    return replace(check, detail=f"{check.detail}; it fails only after the calls before it in repeat {origin}'s "
                                 f"process (the named tests where they ran there, then its share's {len(keys)} "
                                 f"inputs before it): the sequence {shown}")


def confirm(attempts: list[Attempt], k: int, again, share) -> list[str]:
    """Split trials: each relation's counterexample, found in one repeat, is run again in fresh processes,
    under its own repeat's environment and every other's (`again(check, repeat, keys=None) -> failed?`; with a
    list of keys, after the calls the share's process made before it: `share(repeat)` gives the keys of its
    inputs, in order). A repeat where it fails again fails with the same check, so a deterministic failure
    is stable_fail as when every repeat ran every trial, and one that comes and goes is flaky. One that does
    not fail alone under its own repeat's environment is replayed after the calls before it: failing then,
    the sequence is the counterexample, shown in the check, and replayed in every other repeat too.
    Nothing runs where every attempt already fails (the verdict cannot change). Returns the grade's notes.

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
        keys = None  # the sequence it fails after, once the origin's replay shows one
        for a in sorted(attempts, key=lambda a: a.repeat != origin):  # the origin first: it finds the sequence
            try:
                if a.repeat == origin:
                    if again(check, origin):
                        continue
                    keys = preceding(share(origin), check)
                    if again(check, origin, keys):
                        shown = _with_sequence(check, keys, origin)
                        a.checks = [shown if c is check else c for c in a.checks]
                        check = shown
                    else:
                        keys = None
                        notes.append(f"{name}: its counterexample did not fail again in a fresh process under "
                                     f"repeat {origin}'s environment, alone or after the calls before it")
                elif not failing(a):
                    fails = again(check, a.repeat) or keys is not None and again(check, a.repeat, keys)
                    a.checks.append(replace(check) if fails else own.get((name, a.repeat)))
                    a.checks = [c for c in a.checks if c is not None]
            except (SandboxUnavailable, HarnessError) as exc:  # not confirmed either way: not the candidate's
                if a.repeat != origin:
                    a.status, a.reason, a.digest = V.INFRA_UNKNOWN, f"confirming {name}: {exc}", ""
    return notes


def recheck_in_fresh_processes(plan: Plan, check: Check, repeat: int, keys: list[str] | None = None) -> bool:
    """fails_again on the slow path: the candidate and the reference in fresh sandboxes of that repeat (the
    candidate's first call preceded by the inputs `keys`, from its share, in one pipelined round trip)."""
    oracle = plan.task.oracle
    cand = RestartingWorker(plan.candidate, plan.cfg, repeat)
    ref = RestartingWorker(plan.reference, plan.cfg, 0)  # the reference: always repeat 0's environment
    inputs = {json_repr(x): x for xs in plan.shares.values() for x in xs}
    replay = [wire_args(call_args(oracle, inputs[key])) for key in keys or ()]

    def call(x) -> Returned:
        msg = cand.call(call_args(oracle, x), before=replay)
        replay.clear()  # once: the first call of the fresh process is the one the sequence preceded
        return returned(oracle, x, msg)

    try:
        return fails_again(oracle, check, call, _ref_caller(plan, ref), replayed=keys is not None)
    finally:
        cand.close()
        ref.close()


def shares_of(plan: Plan):
    """`share` for confirm on the slow path: the keys of the inputs each repeat's process ran, in order."""
    return lambda repeat: [json_repr(x) for x in plan.shares.get(repeat, ())]
