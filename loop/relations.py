"""Relation grader: a seeded generator makes inputs, relations check properties of the candidate's outputs.
Goldens and named tests leak into prompts; relations stay true when the concrete inputs change.
"""

from __future__ import annotations

import json
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

__all__ = [
    "Returned", "CandidateRaised", "ReferenceFailed", "Call", "Context", "Relation", "RelationFailure",
    "run_relations", "derived_inputs", "trial_input", "trial_size", "generated_inputs", "generic_shrink", "shrink_intervals",
    "json_repr", "canonical_union", "union_measure", "canonical_intervals", "check_sorted_disjoint",
    "validate_intervals", "gen_intervals", "INT32_MIN", "INT32_MAX",
    "CASEFOLD_TRAPS", "CASEFOLD_DISTRACTORS", "vary_case",
    "permutation", "idempotence", "input_not_mutated", "output_contract", "agrees_with_reference",
    "interval_measure", "interval_cover", "subsequence_of_input", "casefold_distinct", "casefolds_kept",
    "prefix_consistency",
]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

SIZE_RAMP_TRIALS = 100      # trial index at which the input size reaches max_size
DEFAULT_MAX_SIZE = 40
MAX_SHRINK_ATTEMPTS = 2000  # evaluations per relation; deterministic, binds before the time budget normally
MAX_SHRINK_CANDIDATES = 20000
MEMO_CAPACITY = 4096
_SHORT = 160


# --------------------------------------------------------------------------- call types


@dataclass(frozen=True)
class Returned:
    value: Any      # the candidate's return value (JSON-like; tuples come back as lists)
    arg_after: Any  # the argument after the call (Python tasks); None for C++ (passed by value)


class CandidateRaised(Exception):
    """The candidate raised an exception on this input (a failure of the candidate, shrinkable)."""


class ReferenceFailed(RuntimeError):
    """The trusted reference raised on an input: a harness bug, never blamed on the candidate."""


Call = Callable[[Any], Returned]


class _Memo:
    """Wraps a Call and memoizes it by json_repr of the argument (LRU, bounded). Values are shared: read-only."""

    def __init__(self, fn: Call, *, is_ref: bool = False, capacity: int = MEMO_CAPACITY) -> None:
        self.fn = fn
        self.is_ref = is_ref
        self.capacity = capacity
        self.cache: OrderedDict[str, Returned | CandidateRaised] = OrderedDict()

    def __call__(self, x: Any) -> Returned:
        key = json_repr(x)
        hit = self.cache.get(key)
        if hit is None:
            try:
                hit = self.fn(x)
            except CandidateRaised as exc:
                if self.is_ref:
                    raise ReferenceFailed(f"reference raised on {_short(x)}: {exc}") from exc
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


@dataclass
class Context:
    """What a relation sees. call/ref are memoized (by json_repr of the argument) so relations share calls."""

    call: Call
    ref: Call
    rng: random.Random

    def __post_init__(self) -> None:
        self.call = _memoized(self.call, is_ref=False)
        self.ref = _memoized(self.ref, is_ref=True)


@dataclass(frozen=True)
class Relation:
    name: str
    check: Callable[[Any, Context], str | None]  # None if the relation holds for x, else a short reason
    # The further inputs check() will call the candidate on, given x and its output, where they are known
    # in advance: the grader sends them in one batch instead of one round trip each. Optional.
    derive: Callable[[Any, Any], list] | None = None


def derived_inputs(oracle: Any, x: Any, output: Any) -> list:
    """Every input the oracle's relations will foreseeably call the candidate on after call(x)."""
    out = []
    for relation in getattr(oracle, "RELATIONS", ()):
        if relation.derive is not None:
            try:
                out += relation.derive(x, output)
            except (TypeError, ValueError):
                pass
    validate = getattr(oracle, "validate_input", None)
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


def _short(x: Any, limit: int = _SHORT) -> str:
    text = json_repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Reject(Exception):
    """Internal: a relation found the candidate's output malformed; the message is the reason."""


def _rejecting(fn: Callable[[Any, Context], str | None]) -> Callable[[Any, Context], str | None]:
    def check(x: Any, ctx: Context) -> str | None:
        try:
            return fn(x, ctx)
        except _Reject as exc:
            return str(exc)

    check.__name__ = getattr(fn, "__name__", "check")
    check.__qualname__ = getattr(fn, "__qualname__", "check")
    return check


def _canon(canon: Callable[[Any], Any] | None, value: Any, what: str = "output") -> Any:
    if canon is None:
        return value
    try:
        return canon(value)
    except ValueError as exc:
        raise _Reject(f"malformed {what}: {exc}") from None


def _as_list(value: Any, what: str = "output") -> list:
    if not isinstance(value, (list, tuple)):
        raise _Reject(f"{what} is not a list: {_short(value)}")
    return list(value)


def _as_str_list(value: Any, what: str = "output") -> list[str]:
    items = _as_list(value, what)
    for i, w in enumerate(items):
        if not isinstance(w, str):
            raise _Reject(f"{what} item {i} is not a string: {_short(w)}")
    return items


# --------------------------------------------------------------------------- intervals


def _fmt(lo: Any, hi: Any, closed: bool) -> str:
    return f"[{lo}, {hi}{']' if closed else ')'}"


def _is_int(v: Any) -> bool:
    return type(v) is int


def _pairs(intervals: Any) -> list[tuple[int, int]]:
    if not isinstance(intervals, (list, tuple)):
        raise ValueError(f"not a list: {_short(intervals, 60)}")
    out = []
    for i, iv in enumerate(intervals):
        if not isinstance(iv, (list, tuple)) or len(iv) != 2 or not (_is_int(iv[0]) and _is_int(iv[1])):
            raise ValueError(f"interval {i} is not two integers: {_short(iv, 60)}")
        out.append((iv[0], iv[1]))
    return out


def validate_intervals(x: Any, *, closed: bool, bounds: tuple[int, int] | None = None,
                       bounds_name: str = "allowed") -> str | None:
    """None if x is a list of valid intervals, else a reason (reversed, empty half-open, out of range)."""
    try:
        pairs = _pairs(x)
    except ValueError as exc:
        return str(exc)
    for i, (lo, hi) in enumerate(pairs):
        if bounds is not None and not (bounds[0] <= lo <= bounds[1] and bounds[0] <= hi <= bounds[1]):
            return f"interval {i} has a value out of {bounds_name} range"
        if lo > hi:
            return f"interval {_fmt(lo, hi, closed)} is reversed"
        if not closed and lo == hi:
            return f"interval {_fmt(lo, hi, closed)} is empty"
    return None


def canonical_union(intervals: Any, closed: bool) -> list[list[int]]:
    """The union as sorted, disjoint, non-touching intervals; an endpoint sweep, exact on Python ints.

    Pieces merge only when b.lo <= a.hi (closed: they share a point; half-open: they touch or overlap),
    so closed [1, 2] and [3, 4] stay apart. Empty half-open pieces are dropped; reversed ones raise ValueError.
    """
    pairs = _pairs(intervals)
    kept = []
    for lo, hi in pairs:
        if lo > hi:
            raise ValueError(f"interval {_fmt(lo, hi, closed)} is reversed")
        if closed or lo < hi:
            kept.append((lo, hi))
    kept.sort()
    out: list[list[int]] = []
    for lo, hi in kept:
        if out and lo <= out[-1][1]:
            if hi > out[-1][1]:
                out[-1][1] = hi
        else:
            out.append([lo, hi])
    return out


def union_measure(union: list[list[int]]) -> int:
    """Total length of a canonical union (points have length 0)."""
    return sum(hi - lo for lo, hi in union)


def check_sorted_disjoint(output: Any, closed: bool, bounds: tuple[int, int] | None = None) -> str | None:
    """None if output is a list of valid intervals (inside bounds), ascending, next.lo > prev.hi; else a reason."""
    try:
        pairs = _pairs(output)
    except ValueError as exc:
        return f"output {exc}"
    for i, (lo, hi) in enumerate(pairs):
        if bounds is not None and not (bounds[0] <= lo <= bounds[1] and bounds[0] <= hi <= bounds[1]):
            return f"output interval {_fmt(lo, hi, closed)} is out of range"
        if lo > hi or (not closed and lo == hi):
            return f"output interval {_fmt(lo, hi, closed)} is {'reversed' if lo > hi else 'empty'}"
        if i and lo <= pairs[i - 1][1]:
            prev = _fmt(*pairs[i - 1], closed)
            if lo < pairs[i - 1][0]:
                return f"output is not sorted: {_fmt(lo, hi, closed)} after {prev}"
            return f"output intervals {prev} and {_fmt(lo, hi, closed)} overlap or touch (should be merged)"
    return None


def canonical_intervals(output: Any, *, closed: bool, bounds: tuple[int, int] | None = None) -> list[list[int]]:
    """Sort the output's pairs; raise ValueError if it is malformed or holds pieces that should be merged."""
    try:
        pairs = sorted(_pairs(output))
    except ValueError as exc:
        raise ValueError(f"output {exc}") from None
    reason = check_sorted_disjoint(pairs, closed, bounds)
    if reason is not None:
        raise ValueError(reason)
    return [[lo, hi] for lo, hi in pairs]


# --------------------------------------------------------------------------- interval generator

_INTERVAL_MODES = ("empty", "single", "scatter", "chain", "nested", "points", "duplicates", "extremes", "mixed")
_INTERVAL_WEIGHTS = (1, 2, 4, 4, 2, 2, 2, 3, 4)
_BLOCKS = ("scatter", "chain", "nested", "points", "duplicates", "extremes")


def _window(rng: random.Random, bounds: tuple[int, int]) -> tuple[int, int]:
    lo_b, hi_b = bounds
    r = rng.random()
    if r < 0.4:
        s = rng.choice((2, 4, 8, 30))
        return max(lo_b, -s), min(hi_b, s)
    if r < 0.6:
        s = rng.choice((10, 100, 10_000))
        a = rng.randint(lo_b, hi_b - s)
        return a, a + s
    if r < 0.8:
        return lo_b, hi_b
    s = rng.choice((3, 20))
    return (lo_b, lo_b + s) if rng.random() < 0.5 else (hi_b - s, hi_b)


def _rand_interval(rng: random.Random, a: int, b: int, minlen: int) -> tuple[int, int]:
    lo = rng.randint(a, b - minlen)
    if rng.random() < 0.5:
        return lo, min(b, lo + rng.randint(minlen, 3))
    return lo, rng.randint(lo + minlen, b)


def _block(rng: random.Random, kind: str, n: int, closed: bool, bounds: tuple[int, int]) -> list[tuple[int, int]]:
    minlen = 0 if closed else 1
    lo_b, hi_b = bounds
    if kind == "scatter":
        a, b = _window(rng, bounds)
        return [_rand_interval(rng, a, b, minlen) for _ in range(n)]
    if kind == "chain":  # consecutive pieces that touch, overlap, sit one integer apart, or leave a gap
        a, b = _window(rng, bounds)
        lo = rng.randint(a, max(a, b - min(b - a, 6 * n)))
        out: list[tuple[int, int]] = []
        for _ in range(n):
            hi = min(b, lo + rng.choice((minlen, minlen, 1, 2, 3, 5)))
            if hi - lo < minlen:
                break
            out.append((lo, hi))
            step = rng.choice(("touch", "touch", "adjacent", "overlap", "gap"))
            if step == "touch":
                lo = hi
            elif step == "adjacent":
                lo = hi + 1
            elif step == "overlap":
                lo = max(out[-1][0], hi - rng.randint(1, max(1, hi - out[-1][0])))
            else:
                lo = hi + rng.randint(2, 5)
            if lo > b - minlen:
                break
        return out
    if kind == "nested":  # one outer interval and pieces inside it, some sharing its endpoints
        a, b = _window(rng, bounds)
        lo = rng.randint(a, b - 2)
        hi = rng.randint(lo + 2, b) if rng.random() < 0.5 else min(b, lo + rng.randint(2, 8))
        out = [(lo, hi)]
        while len(out) < n:
            r = rng.random()
            if r < 0.25:
                out.append((lo, rng.randint(lo + minlen, hi)))
            elif r < 0.5:
                out.append((rng.randint(lo, hi - minlen), hi))
            elif r < 0.6:
                out.append((lo, hi))
            else:
                out.append(_rand_interval(rng, lo, hi, minlen))
        return out
    if kind == "points":  # closed: points, also on others' endpoints; half-open: unit pieces
        a, b = _window(rng, bounds)
        out = []
        for _ in range(n):
            p = rng.randint(a, b - 1)
            if closed:
                r = rng.random()
                if r < 0.6 or not out:
                    out.append((p, p))
                else:
                    q = rng.choice(out)[rng.randint(0, 1)]
                    out.append((min(p, q), max(p, q)) if rng.random() < 0.5 else (q, q))
            else:
                out.append((p, p + 1))
        return out
    if kind == "duplicates":
        a, b = _window(rng, bounds)
        distinct = [_rand_interval(rng, a, b, minlen) for _ in range(rng.randint(1, 3))]
        return [rng.choice(distinct) for _ in range(n)]
    if kind == "extremes":  # pieces anchored at the domain's ends, touching there too
        k = rng.choice((minlen, 1, 2, 1000))
        mid = rng.randint(lo_b + 2 * k + 1, hi_b - 2 * k - 1)
        templates = [(lo_b, lo_b + k), (lo_b, mid), (mid, hi_b), (hi_b - k, hi_b), (lo_b, hi_b),
                     (hi_b - 2 * k, hi_b - k), (lo_b + k, lo_b + 2 * k), (min(0, mid), hi_b), (lo_b, max(0, mid)),
                     (mid, mid + k), _rand_interval(rng, lo_b, hi_b, minlen)]
        if closed:
            templates += [(lo_b, lo_b), (hi_b, hi_b)]
        templates = [(lo, hi) for lo, hi in templates if hi - lo >= minlen]
        return [rng.choice(templates) for _ in range(n)]
    raise ValueError(f"unknown interval block {kind!r}")


def gen_intervals(rng: random.Random, size: int, *, closed: bool, bounds: tuple[int, int]) -> list[list[int]]:
    """One list of intervals inside bounds, shape drawn per input (empty, chains, nested, extremes, ...)."""
    mode = rng.choices(_INTERVAL_MODES, weights=_INTERVAL_WEIGHTS)[0]
    if mode == "empty":
        return []
    n = 1 if mode == "single" else rng.randint(1, max(1, size))
    if mode == "single":
        pairs = _block(rng, rng.choice(("scatter", "extremes", "points")), 1, closed, bounds)
    elif mode == "mixed":
        pairs = []
        while len(pairs) < n:
            pairs += _block(rng, rng.choice(_BLOCKS), rng.randint(1, n - len(pairs)), closed, bounds)
        pairs = pairs[:n]
    else:
        pairs = _block(rng, mode, n, closed, bounds)
    order = rng.choice(("shuffle", "shuffle", "sorted", "reverse", "as_built"))
    if order == "shuffle":
        rng.shuffle(pairs)
    elif order == "sorted":
        pairs.sort()
    elif order == "reverse":
        pairs.sort(reverse=True)
    return [[lo, hi] for lo, hi in pairs]


# --------------------------------------------------------------------------- strings

# Words in one group are equal under str.casefold(); in most groups str.lower() tells some of them apart.
CASEFOLD_TRAPS: tuple[tuple[str, ...], ...] = (
    ("ß", "ss", "SS", "ẞ", "Ss"),
    ("straße", "STRASSE", "Strasse", "strasse"),
    ("ﬁ", "fi", "FI", "Fi"),
    ("ﬁle", "FILE", "file"),
    ("ς", "σ", "Σ"),
    ("οδος", "ΟΔΟΣ", "οδοσ"),
    ("µ", "μ", "Μ"),
    ("ſ", "s", "S"),
    ("\u212a", "k", "K"),
    ("ǆ", "ǅ", "Ǆ"),
    ("İ", "i\u0307"),
    ("ŉ", "ʼn", "ʼN"),
    ("Å", "\u212b", "å"),
    ("жук", "Жук", "ЖУК"),
)
# Words that look alike but differ under casefold: a wrong normalization (upper, NFC, accents) merges them.
CASEFOLD_DISTRACTORS: tuple[tuple[str, ...], ...] = (
    ("ı", "i", "I"),
    ("é", "e\u0301", "É", "e"),
    ("ä", "Ä", "a"),
    ("", " ", "a"),
)


def vary_case(rng: random.Random, word: str) -> str:
    """A random case spelling of word (may leave its casefold class for letters like 'ı')."""
    r = rng.randrange(7)
    if r == 0:
        return word
    if r == 1:
        return word.upper()
    if r == 2:
        return word.lower()
    if r == 3:
        return word.title()
    if r == 4:
        return word.swapcase()
    if r == 5:
        return word.casefold()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)


# --------------------------------------------------------------------------- common relations


def _fixed_orders(x: list) -> Iterator[tuple[str, list]]:
    yield "reversed", x[::-1]
    try:
        yield "sorted", sorted(x)
    except TypeError:
        pass


def _orders(x: list, rng: random.Random) -> Iterator[tuple[str, list]]:
    yield from _fixed_orders(x)
    shuffled = list(x)
    rng.shuffle(shuffled)
    yield "shuffled", shuffled


def permutation(canon: Callable[[Any], Any] | None = None, name: str = "permutation") -> Relation:
    """Reordering the input (reversed, sorted, shuffled) gives the same canonical output."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        if not isinstance(x, list) or len(x) < 2:
            return None
        base = _canon(canon, ctx.call(x).value)
        key = json_repr(x)
        for label, variant in _orders(x, ctx.rng):
            if json_repr(variant) == key:
                continue
            got = _canon(canon, ctx.call(variant).value, f"output for the {label} input")
            if got != base:
                return f"{label} input {_short(variant)} gave {_short(got)}, original gave {_short(base)}"
        return None

    def derive(x: Any, _output: Any) -> list:
        return [v for _, v in _fixed_orders(x)] if isinstance(x, list) and len(x) >= 2 else []

    return Relation(name, check, derive)


def idempotence(canon: Callable[[Any], Any] | None = None, name: str = "idempotence") -> Relation:
    """Feeding the output back in changes nothing: call(call(x).value) == call(x).value (canonically)."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        y = ctx.call(x).value
        cy = _canon(canon, y)
        cz = _canon(canon, ctx.call(y).value, "output of the output")
        if cz != cy:
            return f"output {_short(cy)} fed back in gave {_short(cz)}"
        return None

    return Relation(name, check, lambda _x, output: [output])


def input_not_mutated(name: str = "input_not_mutated") -> Relation:
    """The argument is unchanged after the call (skipped when arg_after is None: passed by value)."""

    def check(x: Any, ctx: Context) -> str | None:
        after = ctx.call(x).arg_after
        if after is None:
            return None
        if after != x or json_repr(after) != json_repr(x):
            return f"argument changed from {_short(x)} to {_short(after)}"
        return None

    return Relation(name, check)


def output_contract(check_fn: Callable[..., str | None], name: str = "output_contract", *,
                    with_input: bool = False) -> Relation:
    """check_fn(output) (or check_fn(x, output) with with_input) returns a reason or None; ValueError fails too."""

    def check(x: Any, ctx: Context) -> str | None:
        value = ctx.call(x).value
        try:
            return check_fn(x, value) if with_input else check_fn(value)
        except ValueError as exc:
            return str(exc) or "output violates the contract"

    return Relation(name, check)


def agrees_with_reference(canon: Callable[[Any], Any] | None = None,
                          compare: Callable[[Any, Any], bool] | None = None,
                          name: str = "agrees_with_reference") -> Relation:
    """Same canonical output as the trusted reference; compare(got, want) -> bool overrides equality."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        got = _canon(canon, ctx.call(x).value)
        try:
            want = canon(ctx.ref(x).value) if canon is not None else ctx.ref(x).value
        except ValueError as exc:
            raise ReferenceFailed(f"reference output malformed on {_short(x)}: {exc}") from exc
        same = compare(got, want) if compare is not None else got == want
        return None if same else f"got {_short(got)}, expected {_short(want)}"

    return Relation(name, check)


def _unions(x: Any, ctx: Context, closed: bool) -> tuple[list[list[int]], list[list[int]]]:
    value = ctx.call(x).value
    try:
        out = canonical_union(value, closed)
    except ValueError as exc:
        raise _Reject(f"malformed output: {exc}") from None
    return canonical_union(x, closed), out


def interval_measure(closed: bool, name: str = "interval_measure") -> Relation:
    """The output's union has the same total length as the input's (endpoint sweep, never enumerates)."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        want, got = _unions(x, ctx, closed)
        mw, mg = union_measure(want), union_measure(got)
        return None if mw == mg else f"output covers total length {mg}, input covers {mw}"

    return Relation(name, check)


def interval_cover(closed: bool, name: str = "interval_cover") -> Relation:
    """The output covers exactly the input's set of points (same canonical union; points count)."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        want, got = _unions(x, ctx, closed)
        if got == want:
            return None
        missing = [iv for iv in want if iv not in got]
        extra = [iv for iv in got if iv not in want]
        return (f"output union {_short(got, 80)} != input union {_short(want, 80)}"
                f" (input pieces not matched: {_short(missing, 60)}; output pieces not matched: {_short(extra, 60)})")

    return Relation(name, check)


def subsequence_of_input(name: str = "subsequence_of_input") -> Relation:
    """Every output item comes from the input, in input order, each input item used at most once."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        out = _as_list(ctx.call(x).value)
        it = iter(x)
        for i, w in enumerate(out):
            if not any(type(v) is type(w) and v == w for v in it):
                return f"output item {i} {_short(w, 40)} is not taken from the input in order"
        return None

    return Relation(name, check)


def casefold_distinct(name: str = "casefold_distinct") -> Relation:
    """No two output words are equal under str.casefold()."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        seen: dict[str, int] = {}
        out = _as_str_list(ctx.call(x).value)
        for i, w in enumerate(out):
            j = seen.setdefault(w.casefold(), i)
            if j != i:
                return f"output words {j} {_short(out[j], 40)} and {i} {_short(w, 40)} are equal under casefold"
        return None

    return Relation(name, check)


def casefolds_kept(name: str = "casefolds_kept") -> Relation:
    """The output has exactly the input's casefold classes: none lost, none invented."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        out = _as_str_list(ctx.call(x).value)
        got = {w.casefold() for w in out}
        want = {w.casefold() for w in x}
        for w in x:
            if w.casefold() not in got:
                return f"input word {_short(w, 40)} has no casefold match in the output"
        for w in out:
            if w.casefold() not in want:
                return f"output word {_short(w, 40)} matches no input word under casefold"
        return None

    return Relation(name, check)


def prefix_consistency(canon: Callable[[Any], Any] | None = None, name: str = "prefix_consistency") -> Relation:
    """The output for a prefix of the input is a prefix of the output for the whole input."""

    @_rejecting
    def check(x: Any, ctx: Context) -> str | None:
        if not isinstance(x, list) or not x:
            return None
        full = _as_list(_canon(canon, ctx.call(x).value))
        n = len(x)
        if n <= 6:
            lengths: Iterable[int] = range(n)
        else:
            lengths = sorted({0, n // 2, n - 1, *ctx.rng.sample(range(1, n - 1), 2)})
        for k in lengths:
            part = _as_list(_canon(canon, ctx.call(x[:k]).value, f"output for the first {k} items"))
            if full[: len(part)] != part:
                return (f"output for the first {k} items {_short(part, 70)} "
                        f"is not a prefix of the full output {_short(full, 70)}")
        return None

    return Relation(name, check)


# --------------------------------------------------------------------------- shrinking


def _shrink_int(n: int) -> Iterator[int]:
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


def _remove_chunks(xs: Any) -> Iterator[Any]:
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
        yield from _shrink_int(x)
    elif isinstance(x, str):
        yield from _remove_chunks(x)
    elif isinstance(x, (list, tuple)):
        xs = list(x)
        yield from _remove_chunks(xs)
        for i, item in enumerate(xs):
            for smaller in generic_shrink(item):
                yield xs[:i] + [smaller] + xs[i + 1:]


def _compressions(values: list[int]) -> Iterator[dict[int, int]]:
    """Close the gaps between distinct values to 1 or 2 (keeping order, equality and adjacency when 2),
    anchored at the lowest or at the highest value (so a piece pinned to INT_MAX can stay there)."""
    distinct = sorted(set(values))
    for cap in (1, 2):
        gaps = [min(b - a, cap) for a, b in zip(distinct, distinct[1:])]
        for from_top in (False, True):
            new = [distinct[0]]
            for g in gaps:
                new.append(new[-1] + g)
            if from_top:
                new = [v - new[-1] + distinct[-1] for v in new]
            if new != distinct:
                yield dict(zip(distinct, new))


def shrink_intervals(x: Any) -> Iterator[Any]:
    """Interval lists: drop pieces, slide everything toward 0, shorten or slide single pieces, then ints."""
    if not isinstance(x, list):
        yield from generic_shrink(x)
        return
    xs = [list(iv) if isinstance(iv, (list, tuple)) else iv for iv in x]
    yield from _remove_chunks(xs)
    ints = [v for iv in xs if isinstance(iv, list) for v in iv if _is_int(v)]
    if ints and len(ints) == 2 * len(xs):
        for compressed in _compressions(ints):
            yield [[compressed[lo], compressed[hi]] for lo, hi in xs]
        anchor = min(ints) if min(ints) > 0 else (max(ints) if max(ints) < 0 else 0)
        for shift in _shrink_int(anchor):
            yield [[lo - anchor + shift, hi - anchor + shift] for lo, hi in xs]
        for i, (lo, hi) in enumerate(xs):
            for length in _shrink_int(hi - lo):
                yield xs[:i] + [[lo, lo + length]] + xs[i + 1:]
            for new_lo in _shrink_int(lo):
                yield xs[:i] + [[new_lo, hi - lo + new_lo]] + xs[i + 1:]
    for i, item in enumerate(xs):
        for smaller in generic_shrink(item):
            yield xs[:i] + [smaller] + xs[i + 1:]


def _shrink(x: Any, reason: str, fails: Callable[[Any], str | None], shrinker: Callable[[Any], Iterable[Any]],
            validate: Callable[[Any], str | None] | None, deadline: float) -> tuple[Any, str, int]:
    """Greedy: accept any candidate on which the relation still fails; resume the scan where the last one was."""
    current, steps, attempts = x, 0, 0
    seen = {json_repr(x)}
    cands = list(islice(shrinker(current), MAX_SHRINK_CANDIDATES))
    start = 0
    while cands:
        accepted = False
        for off in range(len(cands)):
            idx = (start + off) % len(cands)
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


def _max_size(oracle: Any, max_size: int | None) -> int:
    return max_size if max_size is not None else getattr(oracle, "MAX_SIZE", DEFAULT_MAX_SIZE)


_TRIAL_CACHE: dict[tuple, tuple[Any, int]] = {}
GENERATE_TRIES = 20  # proposals per trial an input contract may reject before the trial has no input
NO_INPUT = object()  # a trial whose every proposal broke the input contract


def trial_input(oracle: Any, seed: int, trial: int, max_size: int | None = None) -> Any:
    """The input of one trial (NO_INPUT when the contract rejected every proposal): a function of (seed,
    trial, max_size) only, so every repeat of a grade shares one generated copy (treat it as read-only)."""
    return _trial(oracle, seed, trial, max_size)[0]


def _trial(oracle: Any, seed: int, trial: int, max_size: int | None) -> tuple[Any, int]:
    key = (oracle, oracle.generate, seed, trial, max_size)
    if key not in _TRIAL_CACHE:
        if len(_TRIAL_CACHE) > 20000:
            _TRIAL_CACHE.clear()
        _TRIAL_CACHE[key] = _generate(oracle, seed, trial, max_size)
    return _TRIAL_CACHE[key]


def _generate(oracle: Any, seed: int, trial: int, max_size: int | None) -> tuple[Any, int]:
    """(input, proposals the oracle's input contract rejected). An oracle with `admits(x) -> None | why`
    may propose inputs outside its contract (mutations of known inputs): they are drawn again from the
    same rng, counted, and never used. validate_input, by contrast, guards against a broken generator."""
    rng = random.Random(f"{seed}:{trial}")
    size = trial_size(trial, _max_size(oracle, max_size))
    admits = getattr(oracle, "admits", None)
    rejected = 0
    while True:
        x = oracle.generate(rng, size)
        if admits is None or admits(x) is None:
            break
        rejected += 1
        if rejected == GENERATE_TRIES:
            return NO_INPUT, rejected
    validate = getattr(oracle, "validate_input", None)
    if validate is not None:
        bad = validate(x)
        if bad is not None:
            raise ValueError(f"generator made an invalid input (seed {seed}, trial {trial}): {bad}")
    return x, rejected


# What a relation may raise on a candidate's odd output (10**400 against a float, a str where a number
# belongs, a deep list). Fault and harness exceptions are not among them and propagate.
VALUE_ERRORS = (ArithmeticError, TypeError, ValueError, LookupError, AttributeError, RecursionError)


def generated_inputs(oracle: Any, *, seed: int, trials: int = 200, max_size: int | None = None) -> list[Any]:
    """Every trial's input for a seed, as run_relations sees them."""
    return [x for t in range(trials) if (x := trial_input(oracle, seed, t, max_size)) is not NO_INPUT]


def contract_rejections(oracle: Any, *, seed: int, trials: int = 200, max_size: int | None = None) -> int:
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
        if discard:  # DISCARD_REFERENCE_FAILURES: an input the reference rejects is skipped, not a failure
            return None
        raise
    return None if reason is None else str(reason)


def run_relations(oracle: Any, call: Call, ref: Call, *, seed: int, trials: int = 200,
                  max_size: int | None = None, shrink_seconds: float = 5.0) -> list[RelationFailure]:
    """Run every relation of oracle.RELATIONS over seeded trials; shrink each relation's first failure.

    Deterministic per seed; shrink_seconds bounds the whole run's shrinking (a safety net: the attempt
    cap normally binds first). Exceptions from call other than CandidateRaised propagate unchanged.
    """
    relations: list[Relation] = list(oracle.RELATIONS)
    names = [r.name for r in relations]
    if len(set(names)) != len(names):
        raise ValueError(f"relation names must be unique: {names}")
    validate = getattr(oracle, "validate_input", None)
    shrinker = getattr(oracle, "shrink", None) or generic_shrink
    discard = bool(getattr(oracle, "DISCARD_REFERENCE_FAILURES", False))
    memo_call, memo_ref = _memoized(call, is_ref=False), _memoized(ref, is_ref=True)
    budget = shrink_seconds
    failures: dict[str, RelationFailure] = {}
    for trial in range(trials):
        if len(failures) == len(relations):
            break
        x = trial_input(oracle, seed, trial, max_size)
        if x is NO_INPUT:
            continue
        for relation in relations:
            if relation.name in failures:
                continue
            rng_key = f"{seed}:{trial}:{relation.name}"
            reason = _evaluate(relation, x, Context(memo_call, memo_ref, random.Random(rng_key)), discard)
            if reason is None:
                continue

            def fails(y: Any, relation: Relation = relation, rng_key: str = rng_key) -> str | None:
                return _evaluate(relation, y, Context(memo_call, memo_ref, random.Random(rng_key)), discard)

            started = time.monotonic()
            minimal, why, steps = _shrink(x, reason, fails, shrinker, validate, started + max(0.0, budget))
            budget -= time.monotonic() - started
            failures[relation.name] = RelationFailure(relation.name, seed, trial, x, minimal, why, steps)
    return [failures[n] for n in names if n in failures]

