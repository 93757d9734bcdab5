"""Integer intervals, closed [lo, hi] or half-open [lo, hi): validation, canonical unions, a generator
that reaches the domain's edges, a shrinker and the relations (measure, cover) a merge must keep.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from loop.oracles.engine import (
    Context,
    MalformedOutput,
    Relation,
    catches_malformed,
    generic_shrink,
    remove_chunks,
    short,
    shrink_int,
)

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


# --------------------------------------------------------------------------- intervals


def _fmt(lo: Any, hi: Any, closed: bool) -> str:
    return f"[{lo}, {hi}{']' if closed else ')'}"


def _is_int(v: Any) -> bool:
    return type(v) is int


def _pairs(intervals: Any) -> list[tuple[int, int]]:
    if not isinstance(intervals, (list, tuple)):
        raise ValueError(f"not a list: {short(intervals, 60)}")
    out = []
    for i, iv in enumerate(intervals):
        if not isinstance(iv, (list, tuple)) or len(iv) != 2 or not (_is_int(iv[0]) and _is_int(iv[1])):
            raise ValueError(f"interval {i} is not two integers: {short(iv, 60)}")
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



# --------------------------------------------------------------------------- relations


def _unions(x: Any, ctx: Context, closed: bool) -> tuple[list[list[int]], list[list[int]]]:
    value = ctx.call(x).value
    try:
        out = canonical_union(value, closed)
    except ValueError as exc:
        raise MalformedOutput(f"malformed output: {exc}") from None
    return canonical_union(x, closed), out


def interval_measure(closed: bool, name: str = "interval_measure") -> Relation:
    """The output's union has the same total length as the input's (endpoint sweep, never enumerates)."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        want, got = _unions(x, ctx, closed)
        mw, mg = union_measure(want), union_measure(got)
        return None if mw == mg else f"output covers total length {mg}, input covers {mw}"

    return Relation(name, check)


def interval_cover(closed: bool, name: str = "interval_cover") -> Relation:
    """The output covers exactly the input's set of points (same canonical union; points count)."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        want, got = _unions(x, ctx, closed)
        if got == want:
            return None
        missing = [iv for iv in want if iv not in got]
        extra = [iv for iv in got if iv not in want]
        return (f"output union {short(got, 80)} != input union {short(want, 80)}"
                f" (input pieces not matched: {short(missing, 60)}; output pieces not matched: {short(extra, 60)})")

    return Relation(name, check)



# --------------------------------------------------------------------------- shrinking


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
    yield from remove_chunks(xs)
    ints = [v for iv in xs if isinstance(iv, list) for v in iv if _is_int(v)]
    if ints and len(ints) == 2 * len(xs):
        for compressed in _compressions(ints):
            yield [[compressed[lo], compressed[hi]] for lo, hi in xs]
        anchor = min(ints) if min(ints) > 0 else (max(ints) if max(ints) < 0 else 0)
        for shift in shrink_int(anchor):
            yield [[lo - anchor + shift, hi - anchor + shift] for lo, hi in xs]
        for i, (lo, hi) in enumerate(xs):
            for length in shrink_int(hi - lo):
                yield xs[:i] + [[lo, lo + length]] + xs[i + 1:]
            for new_lo in shrink_int(lo):
                yield xs[:i] + [[new_lo, hi - lo + new_lo]] + xs[i + 1:]
    for i, item in enumerate(xs):
        for smaller in generic_shrink(item):
            yield xs[:i] + [smaller] + xs[i + 1:]
