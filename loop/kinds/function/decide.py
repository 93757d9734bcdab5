"""Every per-value rule of a function task's grade, written once: what a reply means, the goldens' and named
tests' checks, the reference's answers, the arguments' state, the digest, and the split-trial timeout rule.

Both ways of running a candidate feed this module: fresh sandboxes (attempt.py) and the fork servers
(fork/). They only collect replies (the sandbox's messages, decoded here) and run what a rule asks for; a
rule changed here changes both, and a test of it covers both. The relations' rule is oracles.engine's, and
confirmation's is confirm.py's, both called the same way from either path.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from loop import verdicts as V
from loop.errors import CandidateFault
from loop.grading.model import Attempt, Check
from loop.grading.triage import transition
from loop.kinds.task import Task, Test
from loop.oracles.engine import CandidateRaised, RelationFailure, Returned, json_repr, same_value
from loop.oracles.fuzz import equivalent_to
from loop.oracles.oracle import Oracle
from loop.sandbox.inside.codec import dec, enc

VOLATILE = re.compile(r"(total time|pid[=: ]|elapsed|\d+(\.\d+)?\s*(ms|us|µs|ns)\b)", re.I)


# -- a reply --------------------------------------------------------------------------------------------------

def decode(wire):
    """A wire value from the sandbox, decoded totally: anything malformed is the candidate's crash."""
    try:
        return dec(wire)
    except Exception as exc:  # noqa: BLE001 - the candidate may write anything on its result pipe
        raise CandidateFault(V.CRASH, f"the result channel was corrupted ({type(exc).__name__})") from None


def outcome(msg: dict) -> tuple[bool, Any]:
    """(returned?, value or "raised: ..."). The reply comes from the sandbox, where the candidate can write
    anything on the result pipe: a malformed one is the candidate's crash, never loop's."""
    if "ok" in msg:
        return True, decode(msg["ok"])
    return False, "raised: " + str(msg.get("raised", msg.get("resource", "?")))[:500]


def value_of(msg: dict):
    """What the digest covers of one reply: the encoded value, or what was raised."""
    return msg.get("ok", {"raised": msg.get("raised")})


def call_args(oracle: Oracle, x) -> tuple:
    """An oracle of argument lists (ARGS = True) calls fn(*x); else x is the one argument."""
    return tuple(x) if oracle.argument_lists else (x,)


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


def returned(oracle: Oracle, x, msg) -> Returned:
    """The candidate's reply on input x, as the relations see it: its value and the arguments' state after;
    CandidateRaised when it raised; CandidateFault when the reply is no reply (a resource limit, garbage)."""
    if not isinstance(msg, dict):
        raise CandidateFault(V.CRASH, "the result channel was corrupted")
    if "resource" in msg:
        raise CandidateFault(V.RESOURCE, str(msg["resource"])[:300])
    ok, value = outcome(msg)
    if not ok:
        raise CandidateRaised(str(value))
    return Returned(value, arg_after(oracle, x, msg))


@dataclass(frozen=True)
class Rejected:
    """The reference rejected an input (raised, or ran out of its time): the input is discarded, counted by
    `reason` (reference_error | reference_timeout)."""

    why: str
    reason: str


def reference_answer(oracle: Oracle, x, msg) -> Returned | Rejected:
    """One reply of the reference on input x -> its answer (the arguments' state after it included), or why
    the input is discarded. A reply is {"timeout": ...} or {"crash": ...} where its process ended."""
    if not isinstance(msg, dict) or "crash" in msg:
        return Rejected("the reference's process ended", "reference_error")
    if "timeout" in msg:
        return Rejected("timed out", "reference_timeout")
    try:
        ok, value = outcome(msg)
        after = arg_after(oracle, x, msg) if ok else None
    except CandidateFault as fault:
        ok, value = False, str(fault)
    return Returned(value, after) if ok else Rejected(value, "reference_error")


def fault_reply(fault: CandidateFault) -> dict:
    """A fault raised while one call ran, as the reply a server gives for it (reference_answer reads it)."""
    return {"timeout": fault.detail} if fault.check == V.TIMEOUT else {"crash": f"{fault.check}: {fault.detail}"}


# -- checks ---------------------------------------------------------------------------------------------------

def fault_check(fault: CandidateFault, quarantined) -> Check:
    return Check(fault.check, "fault", False, fault.detail, quarantined=fault.check in quarantined)


def named_checks(task: Task, tests: list[Test], results: list, base: list | None, quarantined,
                 only: list[int] | None = None) -> tuple[list, list]:
    """(checks, values) of the goldens and then the named tests, from the candidate's replies to them in that
    order (`results`) and the baseline's to the tests (`base`, None without one); with `only`, the replies
    answer just those cases (positions among the goldens then the tests). A reply that hit a resource
    limit ends the attempt (CandidateFault), as any fault does; `values` feed the digest."""
    cases = [(g, None) for g in task.goldens] + list(zip(tests, base or [None] * len(tests)))
    if only is not None:
        cases = [cases[i] for i in only]
    if not (isinstance(results, list) and len(results) == len(cases) and set(map(type, results)) <= {dict}):
        raise CandidateFault(V.CRASH, "the result channel was corrupted")  # the candidate wrote on it
    checks, values = [], []
    for (case, base_msg), msg in zip(cases, results):
        if "resource" in msg:
            raise CandidateFault(V.RESOURCE, str(msg["resource"])[:300])
        values.append(value_of(msg))
        ok, value = outcome(msg)
        if isinstance(case, Test):
            base_out = test_outcome(case, base_msg) if base_msg is not None else None
            checks.append(test_check(task, case, ok, value, base_out, quarantined))
        else:
            checks.append(golden_check(task, case, ok, value, quarantined))
    return checks, values


def golden_check(task: Task, g, ok: bool, value, quarantined) -> Check:
    passed, detail = golden_matches(task, ok, value, g.expected)
    name = f"golden:{g.case}"
    return Check(name, "golden", passed, detail, input=_one(g.args), expected=g.expected, actual=value,
                 quarantined=name in quarantined)


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


def final_look(msg: dict, name: str, quarantined) -> list[Check]:
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


def _one(args: tuple):
    return args[0] if len(args) == 1 else list(args)


def show(value) -> str:
    """A value as JSON for a failure's detail; total, since candidates choose the values."""
    try:
        return json_repr(enc(value))
    except (TypeError, ValueError, RecursionError):
        return f"<unprintable {type(value).__name__}>"


# -- an attempt as a whole ------------------------------------------------------------------------------------

def digest(values: list, stdout: bytes, stderr: bytes) -> str:
    """A short sha256 of what the candidate produced, minus timing/pid lines that track the scheduler."""
    def clean(blob: bytes) -> str:
        return "\n".join(l for l in blob.decode(errors="replace").splitlines() if not VOLATILE.search(l))

    h = hashlib.sha256(json.dumps(values, sort_keys=True).encode())
    h.update(b"\0" + clean(stdout).encode() + b"\0" + clean(stderr).encode())
    return h.hexdigest()[:12]


def attempt_digest(named: list, trials: list, output: tuple[bytes, bytes], split: bool) -> str:
    """The digest of one repeat: with the trials split across repeats only what every repeat runs (the named
    checks' values and their output, empty where it was not kept apart), else every value and all output."""
    return digest(named, *output) if split else digest(named + trials, *output)


# -- repeats after a failed repeat 0 ---------------------------------------------------------------------------
# A repeat fails if any check that decides fails, so once repeat 0 has failed a golden or named test, repeats
# 1..k-1 first run only that case (and their share of the trials, as their whole run would): failing it again,
# the repeat fails as its whole run would have, and the others of its named tests (an EvalPlus task's plus
# inputs: up to 2.5 s of its reference's time) need not run. Passing it (flaky), or timing out (the
# machine's load, maybe), the repeat runs whole. Every repeat's status, and so the verdict, is the one every
# named test gives; only the named-test rows of a candidate whose failures come and go can show fewer runs.

def first_failure(task: Task, named: list[Check]) -> int | None:
    """The position (among the goldens, then the named tests) of the first case whose failure decides repeat
    0 (`named`: its checks, one per case first, as named_checks gives them), or None. Not with a baseline: a
    test whose baseline outcome varies between repeats is excluded only once every repeat has run it."""
    if task.baseline is not None:
        return None
    return next((i for i, c in enumerate(named) if c.category in ("golden", "test") and not c.passed and c.decides),
                None)


def short_run_decides(checks: list[Check]) -> bool:
    """Does a repeat that ran only repeat 0's failed case fail as its whole run would? The case failed again,
    or its process faulted (a crash, a resource limit) — never on a timeout alone, which the whole run decides."""
    return any(not c.passed and c.decides and (c.category in ("golden", "test") or c.category == "fault" and
                                               c.check != V.TIMEOUT) for c in checks)


def timed_out(a: Attempt) -> Check | None:
    return next((c for c in a.checks if c.check == V.TIMEOUT and not c.passed), None)


def timeouts_everywhere(attempts: list[Attempt], split: bool, again) -> list[str]:
    """Split trials: a repeat whose share timed out runs that share once more in the next repeat's environment
    (`again(r, j)`: repeat r's share in repeat j's environment, a fresh process -> its timeout Check, or None);
    timing out there too, the inputs are slow whatever the environment and every repeat fails with it, as a
    double timeout in repeat 0 does; else the grade keeps the one timeout (flaky). Without this, an input slow
    for the candidate, which only one share holds, could never fail more than one repeat. Returns notes."""
    k = len(attempts)
    slow = [a.repeat for a in attempts if timed_out(a)]
    if not split or k < 2 or not slow or len(slow) == k:
        return []
    r = slow[0]
    j = next(j % k for j in range(r + 1, r + k) if not timed_out(attempts[j % k]))
    timeout = again(r, j)
    if timeout is None:
        return []
    for a in attempts:
        if not timed_out(a):
            a.checks.append(replace(timeout))
    return [f"repeat {r}'s inputs timed out in repeat {j}'s environment too: every repeat fails"]


# -- EvalPlus's plus inputs shared out across repeats ----------------------------------------------------------
# Named tests marked shared (tests.json "shared": EvalPlus's plus inputs, up to 2.5 s of the reference's time)
# run as trials do where the trials are split: each in one repeat, r, r+k, ..., after every golden and other
# test, which every repeat runs (and the digest covers). One that fails, or a share that faults, is run again
# in every other repeat's environment after the calls that preceded it in its own (confirm_shared), so a
# deterministic failure fails every repeat (stable_fail) and one that comes and goes is flaky.

def shares(task: Task, tests: list[Test], part: tuple[int, int] | None) -> list[int] | None:
    """Repeat r's cases (positions among the goldens, then the tests), part = (r, k): every golden and unshared
    test, then the shared tests r, r+k, ...; None where the repeat runs every case (every repeat runs every
    trial, no test is shared, or a baseline: a test whose baseline outcome varies is judged over every repeat)."""
    if part is None or task.baseline is not None:
        return None
    g = len(task.goldens)
    shared = [g + i for i, t in enumerate(tests) if t.shared]
    if not shared:
        return None
    r, k = part
    marked = set(shared)
    return [i for i in range(g + len(tests)) if i not in marked] + shared[r::k]


def common_cases(task: Task, tests: list[Test]) -> int:
    """How many of a repeat's cases every repeat runs (the first ones of `shares`)."""
    return len(task.goldens) + sum(not t.shared for t in tests)


def common_values(task: Task, tests: list[Test], only: list[int] | None, values: list) -> list:
    """Of a repeat's named values (one per case it ran, `only`: their positions), those of the cases every
    repeat runs: what its digest covers."""
    g = len(task.goldens)
    shared = {g + i for i, t in enumerate(tests) if t.shared}
    if not shared:
        return values
    return [v for i, v in zip(range(g + len(tests)) if only is None else only, values) if i not in shared]


def confirm_shared(task: Task, tests: list[Test], attempts: list[Attempt], ran: dict, again) -> None:
    """A repeat that failed one of its shared tests, or whose run faulted, has its calls up to that test (all of
    them for a fault) run again in a fresh process of every other repeat that passed (`again(cases, repeat) ->
    the failing checks of that run`, `ran`: repeat -> its cases); those checks join that repeat, as a relation's
    counterexample does (confirm.py). Nothing runs where every attempt already fails."""
    def failing(a: Attempt) -> bool:
        return a.status == V.INFRA_UNKNOWN or any(not c.passed and c.decides for c in a.checks)

    position = {f"test:{t.name}": len(task.goldens) + i for i, t in enumerate(tests) if t.shared}
    for a in sorted(attempts, key=lambda a: a.repeat):
        cases = ran.get(a.repeat)
        if cases is None or not failing(a) or a.status == V.INFRA_UNKNOWN:
            continue
        hit = next((c for c in a.checks if not c.passed and c.decides and c.check in position
                    and position[c.check] in cases), None)
        fault = next((c for c in a.checks if c.category == "fault" and not c.passed and c.decides), None)
        if hit is None and fault is None:
            continue  # a failure every repeat runs too (a golden, an unshared test) or a relation's
        prefix = cases[: cases.index(position[hit.check]) + 1] if hit is not None else cases
        for b in attempts:
            if b is not a and not failing(b):
                b.checks += again(prefix, b.repeat)
