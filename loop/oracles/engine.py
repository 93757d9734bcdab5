"""The relation engine: seeded trial inputs, relations checked on the candidate's outputs, shrinking.
Goldens and named tests leak into prompts; relations stay true when the concrete inputs change.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol

from loop.oracles import reach

SIZE_RAMP_TRIALS = 100      # trial index at which the input size reaches max_size
DEFAULT_MAX_SIZE = 40
MAX_SHRINK_ATTEMPTS = 2000  # evaluations per relation; deterministic, binds before the time budget normally
MAX_SHRINK_CANDIDATES = 20000
MEMO_CAPACITY = 4096
PREFETCH = 32  # shrink candidates announced to a prefetch hook at a time
_SHORT = 160


class Oracle(Protocol):
    """What the engine reads of a task's oracle (loop.oracles.oracle.Oracle, built on top of this module)."""

    relations: tuple
    generate: Callable[[random.Random, int], Any] | None
    shrink: Callable[[Any], Iterable[Any]]
    validate_input: Callable[[Any], str | None] | None
    admits: Callable[[Any], str | None] | None
    discard_reference_failures: bool
    max_size: int
    reference_limit: float


# --------------------------------------------------------------------------- call types


@dataclass(frozen=True)
class Returned:
    value: Any      # the candidate's return value (JSON-like; tuples come back as lists)
    # The argument after the call (one-argument oracles; C++ passes by value, so it is the input). Oracles of
    # argument lists: None when every argument is as it went in, else the list of every argument after it.
    arg_after: Any


class CandidateRaised(Exception):
    """The candidate raised an exception on this input (a failure of the candidate, shrinkable)."""


class ReferenceFailed(RuntimeError):
    """The trusted reference raised on an input: a harness bug, never blamed on the candidate."""


Call = Callable[[Any], Returned]


class _Memo:
    """Wraps a Call and memoizes it by json_repr of the argument (LRU, bounded). Values are shared: read-only.
    keyed: fn takes (x, key), for answers already kept by that key (the argument is encoded once, not twice)."""

    def __init__(self, fn: Callable, *, is_ref: bool = False, capacity: int = MEMO_CAPACITY,
                 keyed: bool = False) -> None:
        self.fn = fn
        self.is_ref = is_ref
        self.capacity = capacity
        self.keyed = keyed
        self.cache: OrderedDict[str, Returned | CandidateRaised] = OrderedDict()

    def __call__(self, x: Any) -> Returned:
        key = json_repr(x)
        hit = self.cache.get(key)
        if hit is None:
            try:
                hit = self.fn(x, key) if self.keyed else self.fn(x)
            except CandidateRaised as exc:
                if self.is_ref:
                    raise ReferenceFailed(f"reference raised on {short(x)}: {exc}") from exc
                hit = exc
            self.cache[key] = hit
            if len(self.cache) > self.capacity:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(key)
        if isinstance(hit, CandidateRaised):
            raise hit
        return hit


def _memoized(fn: Call, *, is_ref: bool) -> _Memo:
    return fn if isinstance(fn, _Memo) else _Memo(fn, is_ref=is_ref)


def by_key(fn: Callable[[Any, str], Returned], *, is_ref: bool) -> Call:
    """A Call for run_relations from fn(x, json_repr(x)): a table of answers by key, looked up without
    encoding each argument a second time."""
    return _Memo(fn, is_ref=is_ref, keyed=True)


class Context:
    """What a relation sees. call/ref are memoized (by json_repr of the argument) so relations share calls.
    rng may be given as its seed: the Random is made when a relation first asks for it (seeding one from a
    string costs more than most relations' checks, and most never draw from it)."""

    def __init__(self, call: Call, ref: Call, rng: random.Random | str) -> None:
        self.call = _memoized(call, is_ref=False)
        self.ref = _memoized(ref, is_ref=True)
        self._rng = rng

    @property
    def rng(self) -> random.Random:
        if isinstance(self._rng, str):
            self._rng = random.Random(self._rng)
        return self._rng


@dataclass(frozen=True)
class Relation:
    name: str
    check: Callable[[Any, Context], str | None]  # None if the relation holds for x, else a short reason
    # The further inputs check() will call the candidate on, given x and its output, where they are known
    # in advance: the grader sends them in one batch instead of one round trip each. Optional.
    derive: Callable[[Any, Any], list] | None = None
    # The check reads the arguments' state after the call (Returned.arg_after): a grader then also looks at
    # them once the attempt is over, and an oracle declaring MUTATION_ALLOWED drops the relation.
    reads_arguments: bool = False


def derived_inputs(oracle: Oracle, x: Any, output: Any) -> list:
    """Every input the oracle's relations will foreseeably call the candidate on after call(x)."""
    out = []
    for relation in oracle.relations:
        if relation.derive is not None:
            try:
                out += relation.derive(x, output)
            except (TypeError, ValueError):
                pass
    validate = oracle.validate_input
    # Only in-contract inputs go ahead of time; anything else waits until a relation really asks.
    return [d for d in out if validate is None or validate(d) is None]


@dataclass(frozen=True)
class RelationFailure:
    relation: str
    seed: int
    trial: int
    original: Any
    minimal: Any
    reason: str
    shrink_steps: int


# --------------------------------------------------------------------------- helpers


def json_repr(x: Any) -> str:
    """Canonical JSON (sorted keys, no spaces, non-ASCII kept) used for memo keys and counterexamples."""
    try:
        try:
            return json.dumps(x, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=repr)
        except TypeError:  # keys of mixed types cannot be sorted: insertion order then
            return json.dumps(x, ensure_ascii=False, separators=(",", ":"), default=repr)
    except (ValueError, RecursionError) as exc:  # a candidate's 5000-digit int or 10,000-deep list
        return f"<unprintable {type(x).__name__}: {type(exc).__name__}>"


def same_value(got: Any, expected: Any, *, ordered: bool = False) -> bool:
    """Type and value, recursively (1.0 is not 1, True is not 1); floats within 1e-6 where a float is expected;
    `ordered`: a dict's items in order too (the arguments' state). Total: 10**400 against a float differs."""
    try:
        if isinstance(expected, float):
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                return False
            if math.isnan(expected) or math.isnan(got):
                return math.isnan(expected) and math.isnan(got)
            return math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-6)
        if type(got) is not type(expected):
            return False
        if isinstance(expected, (list, tuple)):
            return len(got) == len(expected) and all(same_value(x, y, ordered=ordered) for x, y in zip(got, expected))
        if isinstance(expected, dict) and ordered:
            return len(got) == len(expected) and all(same_value(list(x), list(y), ordered=True)
                                                     for x, y in zip(got.items(), expected.items()))
        if isinstance(expected, dict):
            return got.keys() == expected.keys() and all(same_value(got[k], expected[k]) for k in expected)
        if isinstance(expected, (set, frozenset)):  # `==` would take {1.0} for {1}: typed members
            return {(type(x), repr(x)) for x in got} == {(type(x), repr(x)) for x in expected}
        return bool(got == expected)
    except (ArithmeticError, TypeError, ValueError, RecursionError):
        return False


def short(x: Any, limit: int = _SHORT) -> str:
    """json_repr cut to limit characters: failure reasons quote candidates' values, which may be huge."""
    text = json_repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class MalformedOutput(Exception):
    """Raised inside a relation's check when the candidate's output is malformed; the message is the reason
    (relation libraries raise it from helpers, catches_malformed turns it into the check's result)."""


def catches_malformed(fn: Callable[[Any, Context], str | None]) -> Callable[[Any, Context], str | None]:
    """Decorate a check so that a MalformedOutput raised anywhere inside it becomes its failure reason."""

    def check(x: Any, ctx: Context) -> str | None:
        try:
            return fn(x, ctx)
        except MalformedOutput as exc:
            return str(exc)

    check.__name__ = getattr(fn, "__name__", "check")
    check.__qualname__ = getattr(fn, "__qualname__", "check")
    return check


def canonical_or_malformed(canon: Callable[[Any], Any] | None, value: Any, what: str = "output") -> Any:
    """canon(value) (value itself without a canon); a ValueError from canon means malformed output."""
    if canon is None:
        return value
    try:
        return canon(value)
    except ValueError as exc:
        raise MalformedOutput(f"malformed {what}: {exc}") from None


def output_list(value: Any, what: str = "output") -> list:
    """The output as a list, or MalformedOutput."""
    if not isinstance(value, (list, tuple)):
        raise MalformedOutput(f"{what} is not a list: {short(value)}")
    return list(value)


def output_str_list(value: Any, what: str = "output") -> list[str]:
    """The output as a list of strings, or MalformedOutput."""
    items = output_list(value, what)
    for i, w in enumerate(items):
        if not isinstance(w, str):
            raise MalformedOutput(f"{what} item {i} is not a string: {short(w)}")
    return items


# --------------------------------------------------------------------------- shrinking

def shrink_int(n: int) -> Iterator[int]:
    """Ints closer to 0 than n, 0 first, then halving the distance."""
    if n == 0:
        return
    yield 0
    if n < 0:
        yield -n
    d = abs(n) // 2
    step = 1 if n > 0 else -1
    while d > 0:
        yield n - step * d
        d //= 2


def remove_chunks(xs: Any) -> Iterator[Any]:
    """xs without one chunk of its items, whole xs first, then halves, quarters, ... single items."""
    n = len(xs)
    chunk = n
    while chunk >= 1:
        for start in range(0, n, chunk):
            yield xs[:start] + xs[start + chunk:]
        chunk //= 2


def generic_shrink(x: Any) -> Iterator[Any]:
    """Smaller variants of x, biggest cuts first: drop list chunks/items, shorten strings, move ints to 0."""
    if isinstance(x, bool):
        if x:
            yield False
    elif isinstance(x, int):
        yield from shrink_int(x)
    elif isinstance(x, str):
        yield from remove_chunks(x)
    elif isinstance(x, (list, tuple)):
        xs = list(x)
        yield from remove_chunks(xs)
        for i, item in enumerate(xs):
            for smaller in generic_shrink(item):
                yield xs[:i] + [smaller] + xs[i + 1:]


def _shrink(x: Any, reason: str, fails: Callable[[Any], str | None], shrinker: Callable[[Any], Iterable[Any]],
            validate: Callable[[Any], str | None] | None, deadline: float,
            prefetch: Callable[[list], None] | None = None) -> tuple[Any, str, int]:
    """Greedy: accept any candidate on which the relation still fails; resume the scan where the last one was.
    `prefetch(xs)`, if given, is told the next PREFETCH candidates the scan will try, before it tries them
    (a grader answers them in one batch instead of one round trip each)."""
    current, steps, attempts = x, 0, 0
    seen = {json_repr(x)}
    cands = list(islice(shrinker(current), MAX_SHRINK_CANDIDATES))
    start = 0
    while cands:
        accepted = False
        for off in range(len(cands)):
            idx = (start + off) % len(cands)
            if prefetch is not None and off % PREFETCH == 0:
                window = [cands[(idx + i) % len(cands)] for i in range(min(PREFETCH, len(cands) - off))]
                prefetch([y for y in window if validate is None or validate(y) is None])
            cand = cands[idx]
            key = json_repr(cand)
            if key in seen:
                continue
            seen.add(key)
            if validate is not None and validate(cand) is not None:
                continue
            if attempts >= MAX_SHRINK_ATTEMPTS or time.monotonic() > deadline:
                return current, reason, steps
            attempts += 1
            why = fails(cand)
            if why is not None:
                current, reason, steps, accepted = cand, why, steps + 1, True
                cands = list(islice(shrinker(current), MAX_SHRINK_CANDIDATES))
                start = idx
                break
        if not accepted:
            break
    return current, reason, steps


# --------------------------------------------------------------------------- runner


def trial_size(trial: int, max_size: int) -> int:
    """Input size for a trial: grows with the trial index, reaching max_size at SIZE_RAMP_TRIALS."""
    return max(1, min(max_size, (trial + 1) * max_size // SIZE_RAMP_TRIALS))


def _max_size(oracle: Oracle, max_size: int | None) -> int:
    return max_size if max_size is not None else oracle.max_size


_TRIAL_CACHE: dict[tuple, tuple[Any, int]] = {}
GENERATE_TRIES = 20  # proposals per trial an input contract may reject before the trial has no input
NO_INPUT = object()  # a trial whose every proposal broke the input contract


def trial_input(oracle: Oracle, seed: int, trial: int, max_size: int | None = None) -> Any:
    """The input of one trial (NO_INPUT when the contract rejected every proposal): a function of (seed,
    trial, max_size) only, so every repeat of a grade shares one generated copy (treat it as read-only)."""
    return _trial(oracle, seed, trial, max_size)[0]


def _trial(oracle: Oracle, seed: int, trial: int, max_size: int | None) -> tuple[Any, int]:
    key = (oracle, seed, trial, max_size)  # an Oracle is immutable and hashed by identity
    if key not in _TRIAL_CACHE:
        if len(_TRIAL_CACHE) > 20000:
            _TRIAL_CACHE.clear()
        _TRIAL_CACHE[key] = _generate(oracle, seed, trial, max_size)
    return _TRIAL_CACHE[key]


def trials_made(oracle: Oracle, seed: int, trials: int, max_size: int | None = None) -> list[tuple[Any, int]]:
    """Every trial's (input or NO_INPUT, proposals rejected): what a cache keeps to skip generating again."""
    return [_trial(oracle, seed, t, max_size) for t in range(trials)]


def reference_limits(oracle: Oracle, made: list[tuple[Any, int]], keys: list[str]) -> dict[str, float]:
    """Each trial input's time limit for the reference, by key (keys: made's inputs' json_repr, NO_INPUT
    skipped): a boundary trial's at most reach.BOUNDARY_LIMIT, any other the oracle's (the larger for an
    input two trials share)."""
    out: dict[str, float] = {}
    short = min(oracle.reference_limit, reach.BOUNDARY_LIMIT)
    trials = (t for t, (x, _) in enumerate(made) if x is not NO_INPUT)
    for t, key in zip(trials, keys):
        out[key] = max(out.get(key, 0.0), short if reach.tilt_of(t) == "boundary" else oracle.reference_limit)
    return out


def _generate(oracle: Oracle, seed: int, trial: int, max_size: int | None) -> tuple[Any, int]:
    """(input, proposals the oracle's input contract rejected). An oracle with `admits(x) -> None | why`
    may propose inputs outside its contract (mutations of known inputs): they are drawn again from the
    same rng, counted, and never used. validate_input, by contrast, guards against a broken generator."""
    rng = random.Random(f"{seed}:{trial}")
    size = trial_size(trial, _max_size(oracle, max_size))
    admits = oracle.admits
    rejected = 0
    tilt = reach.tilt_of(trial)
    if admits is not None and tilt is not None:  # corners, boundaries, ...: reach.py
        previous = _trial(oracle, seed, trial - 1, max_size)[0] if tilt == "coincide" and trial else NO_INPUT
        tilted = reach.propose(oracle.generate, admits, seed=seed, trial=trial, size=size,
                               args=getattr(oracle, "argument_lists", False),
                               previous=None if previous is NO_INPUT else previous)
        validate = oracle.validate_input
        if tilted is not None and (validate is None or validate is admits or validate(tilted[0]) is None):
            return tilted
    while True:
        x = oracle.generate(rng, size)
        if admits is None or admits(x) is None:
            break
        rejected += 1
        if rejected == GENERATE_TRIES:
            return NO_INPUT, rejected
    validate = oracle.validate_input
    if validate is not None and validate is not admits:  # HumanEval's are one function: admits said None
        bad = validate(x)
        if bad is not None:
            raise ValueError(f"generator made an invalid input (seed {seed}, trial {trial}): {bad}")
    return x, rejected


# What a relation may raise on a candidate's odd output (10**400 against a float, a str where a number
# belongs, a deep list). Fault and harness exceptions are not among them and propagate.
VALUE_ERRORS = (ArithmeticError, TypeError, ValueError, LookupError, AttributeError, RecursionError)


def generated_inputs(oracle: Oracle, *, seed: int, trials: int = 200, max_size: int | None = None) -> list[Any]:
    """Every trial's input for a seed, as run_relations sees them."""
    return [x for t in range(trials) if (x := trial_input(oracle, seed, t, max_size)) is not NO_INPUT]


def contract_rejections(oracle: Oracle, *, seed: int, trials: int = 200, max_size: int | None = None) -> int:
    """How many generated proposals the oracle's input contract discarded over those trials."""
    return sum(_trial(oracle, seed, t, max_size)[1] for t in range(trials))


def _evaluate(relation: Relation, x: Any, ctx: Context, discard: bool = False) -> str | None:
    try:
        reason = relation.check(x, ctx)
    except CandidateRaised as exc:
        return f"raised: {exc}"
    except VALUE_ERRORS as exc:  # the candidate's output broke the relation's arithmetic: its failure
        return f"output could not be checked: {type(exc).__name__}: {str(exc)[:200]}"
    except ReferenceFailed:
        if discard:  # the oracle discards reference failures: an input the reference rejects is skipped, not a failure
            return None
        raise
    return None if reason is None else str(reason)


def in_part(trial: int, part: tuple[int, int] | None) -> bool:
    """Does repeat r of k run this trial? Trials are a budget per grade: repeat r runs every k-th one,
    from r (part None: every trial, in every repeat)."""
    return part is None or trial % part[1] == part[0]


def run_relations(oracle: Oracle, call: Call, ref: Call, *, seed: int, trials: int = 200,
                  max_size: int | None = None, shrink_seconds: float = 5.0,
                  made: list[tuple[Any, int]] | None = None, part: tuple[int, int] | None = None,
                  skip: Callable[[int], bool] | None = None, on_trial: Callable[[int], None] | None = None,
                  prefetch: Callable[[list], None] | None = None) -> list[RelationFailure]:
    """Run every relation of the oracle over seeded trials; shrink each relation's first failure.

    Deterministic per seed; shrink_seconds bounds the whole run's shrinking (a safety net: the attempt
    cap normally binds first). Exceptions from call other than CandidateRaised propagate unchanged.
    `made`: the trials' inputs as trials_made gave them for this seed (kept with a cached table).
    `part` (r, k): only repeat r's share of the trials (in_part); `skip(trial)`: trials left out as well;
    `on_trial(trial)`: told before each trial is checked (and its failure shrunk); `prefetch`: see _shrink.
    """
    relations = oracle.relations  # names are unique: the Oracle checks that when it is built
    names = [r.name for r in relations]
    validate, shrinker, discard = oracle.validate_input, oracle.shrink, oracle.discard_reference_failures
    memo_call, memo_ref = _memoized(call, is_ref=False), _memoized(ref, is_ref=True)
    budget = shrink_seconds
    failures: dict[str, RelationFailure] = {}
    for trial in range(trials):
        if len(failures) == len(relations):
            break
        if not in_part(trial, part) or (skip is not None and skip(trial)):
            continue
        x = made[trial][0] if made is not None else trial_input(oracle, seed, trial, max_size)
        if x is NO_INPUT:
            continue
        if on_trial is not None:
            on_trial(trial)
        for relation in relations:
            if relation.name in failures:
                continue
            rng_key = f"{seed}:{trial}:{relation.name}"
            reason = _evaluate(relation, x, Context(memo_call, memo_ref, rng_key), discard)
            if reason is None:
                continue

            def fails(y: Any, relation: Relation = relation, rng_key: str = rng_key) -> str | None:
                return _evaluate(relation, y, Context(memo_call, memo_ref, rng_key), discard)

            started = time.monotonic()
            minimal, why, steps = _shrink(x, reason, fails, shrinker, validate, started + max(0.0, budget),
                                          prefetch)
            budget -= time.monotonic() - started
            failures[relation.name] = RelationFailure(relation.name, seed, trial, x, minimal, why, steps)
    return [failures[n] for n in names if n in failures]


def recheck(oracle: Oracle, relation: str, x: Any, call: Call, ref: Call, *, seed: int, trial: int) -> str | None:
    """Check one relation on one input again, as run_relations checked it in that trial (the same rng):
    the reason it fails, or None. How a counterexample is confirmed in fresh processes."""
    rel = next(r for r in oracle.relations if r.name == relation)
    ctx = Context(call, ref, f"{seed}:{trial}:{relation}")
    return _evaluate(rel, x, ctx, oracle.discard_reference_failures)
