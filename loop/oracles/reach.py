"""Trials that reach past the typical input: corners, representation boundaries, the whole alphabet, a rare
long tail and coincidences, each a fixed share of a grade's trial budget, always inside the input contract.

The engine picks a trial's tilt from its index alone (`tilt_of`), so every seed gets the same share of
each. Generators written with `loop.oracles.gen` honour a tilt through the `Tilted` random they are handed
(gen's building blocks read its fields); where a generator did not use them (it drew with the rng
directly, or it mutates known inputs), a structural transform of its input does the same job by type.
Only oracles with an input contract (`admits`) get tilted trials: a proposal the contract rejects is
drawn again a few times, then the trial falls back to an ordinary one. Deterministic per (seed, trial).
"""

from __future__ import annotations

import collections
import functools
import random
import string
from collections.abc import Callable
from typing import Any

CORNERS = ("empty", "single", "equal", "empty_elems", "extreme")
BLOCK = 20                  # the schedule repeats every BLOCK trials ...
SCHEDULE = {2: "corner", 12: "corner", 7: "boundary", 5: "wide", 15: "wide", 9: "coincide", 17: "coincide",
            19: "coincide"}
AGGREGATES = ("order", "sum", "length")  # what a coincidence trial keeps equal, in turn
TAIL_EVERY = 200            # ... and trial 199, 399, ... is a long one (1 in a 200-trial budget)
TAIL_LENGTHS = (1100, 1600)  # about 10x the usual length at MAX_SIZE (about 3 * 40 = 120), past recursion's 1000
TILT_TRIES = 2              # tilted proposals per trial before it falls back to an ordinary one
BOUNDARY_LIMIT = 0.1        # seconds the reference may spend on a boundary trial's input (a lone int there
                            # may be a count it loops to: discarded fast, not after the whole per-input limit)

# Integers where fixed-width arithmetic breaks: 2**31, 2**32, 2**53 (doubles), 2**63, 2**64, powers of ten;
# each boundary trial focuses on one of BASES in turn (so each comes up in a grade), its neighbours included.
BASES = (2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, 10 ** 9, 2 ** 64, 10 ** 18, 2 ** 15, 2 ** 16, 10 ** 6)
BOUNDARIES = tuple(sorted({b + d for b in (*BASES, *(10 ** k for k in range(1, 19))) for d in (-1, 0, 1)}))
# A lone int of a mutated known input (no list of ints beside it) goes to one of these in turn, its sign
# kept: the edges of fixed widths (INT_MAX, 2**32, 2**53 + 1: the first int a double cannot hold, LLONG_MAX),
# past recursion's depth, and primes, the worst case for divisor loops (2**31 - 1, 10**9 + 7, 2**32 - 5).
# The contract and the reference's time limit decide what is legal. A generator written from the contract
# declares its ints' ranges instead (a count the reference loops to stays small there).
LONE_INTS = (2 ** 31 - 1, 2 ** 53 + 1, 10 ** 9 + 7, 2 ** 32, 2 ** 63 - 1, 2 ** 32 - 5, 2 ** 31, 10 ** 18 + 9,
             2 ** 64 + 1, 2 ** 16 + 1)
META = ".*+?^$\\|()[]{}%'\""     # regex and format metacharacters, quotes
SPACES = " \t\n\r\x0b\x0c\xa0"
UNICODE = "éßÅñ中ΣσςİıKſ\u0301😀"
WIDE_CLASSES = (META, string.punctuation, SPACES + META, UNICODE + META, META + SPACES + UNICODE)  # metacharacters in all


class Tilted(random.Random):
    """A random.Random carrying one trial's tilt, read by gen's building blocks. `honoured` is set by any
    block that applied it (otherwise the engine transforms the generated input structurally)."""

    def __init__(self, seed: str, tilt: str | None = None, corner: str | None = None, wide: str = "",
                 tail: int = 0, aggregate: str = "", base: int = 2 ** 31, lone: int = 2 ** 31 - 1) -> None:
        super().__init__(seed)
        self.base, self.lone = base, lone
        self.tilt, self.corner, self.wide, self.tail, self.aggregate = tilt, corner, wide, tail, aggregate
        self.honoured = False
        self.lengths = 0  # length() calls so far: the first is the outermost one
        self.mutated = False  # set by a generator that mutated a known input (no range declared for its ints)


def tilt_of(trial: int) -> str | None:
    """The tilt of a trial index: None for an ordinary trial."""
    if trial % TAIL_EVERY == TAIL_EVERY - 1:
        return "tail"
    return SCHEDULE.get(trial % BLOCK)


def tilted_rng(seed: int, trial: int, attempt: int, tilt: str) -> Tilted:
    key = f"reach:{seed}:{trial}:{attempt}"
    corner = CORNERS[(trial // 10 + attempt) % len(CORNERS)] if tilt == "corner" else None
    wide = WIDE_CLASSES[(trial // 10 + attempt) % len(WIDE_CLASSES)] if tilt == "wide" else ""
    tail = random.Random(key).randint(*TAIL_LENGTHS) if tilt == "tail" else 0
    aggregate = AGGREGATES[(trial // 3 + attempt) % len(AGGREGATES)] if tilt == "coincide" else ""
    base = BASES[(trial // BLOCK + attempt) % len(BASES)]
    lone = LONE_INTS[(trial // BLOCK + attempt) % len(LONE_INTS)]
    return Tilted(key, tilt, corner, wide, tail, aggregate, base, lone)


def propose(generate: Callable[[random.Random, int], Any], admits: Callable[[Any], str | None], *,
            seed: int, trial: int, size: int, args: bool, previous: Any = None) -> tuple[Any, int] | None:
    """(an input of this trial's tilt the contract admits, proposals rejected), or None: an ordinary trial.
    A coincidence is derived from `previous` (the trial before's input) when there is one: the grade then
    holds both sides of the pair, and no input is generated only to be changed."""
    tilt = tilt_of(trial)
    if tilt is None:
        return None
    rejected = 0
    for attempt in range(TILT_TRIES):
        rng = tilted_rng(seed, trial, attempt, tilt)
        try:
            x = previous if tilt == "coincide" and previous is not None else generate(rng, size)
            if not rng.honoured or tilt == "coincide" or (tilt == "corner" and rng.random() < 0.3):
                x = transform(x, rng, args)
            ok = admits(x) is None
        except Exception:  # noqa: BLE001 - a generator or contract surprised by a corner: draw again
            ok = False
        if ok:
            return x, rejected
        rejected += 1
    return None


# --------------------------------------------------------------------------- structural transforms


def transform(x: Any, rng: Tilted, args: bool) -> Any:
    """x changed by type to carry rng's tilt: one argument of an argument list, or x itself."""
    if rng.tilt == "coincide":
        return _coincide_args(x, rng) if args else coincide(x, rng)
    # A boundary goes into a list of ints (its items are values), else into a lone int (see LONE_INTS).
    fn = {"corner": _corner, "wide": _widen, "tail": _lengthen, "boundary": _boundary}.get(rng.tilt)
    if fn is None:
        return x
    if not args or not isinstance(x, list):
        return fn(x, rng)
    sites = [i for i, v in enumerate(x) if _fits(v, rng.tilt)]
    if not sites and rng.tilt == "boundary" and rng.mutated:
        sites = [i for i, v in enumerate(x) if _is_int(v)]
    if not sites:
        return x
    i = rng.choice(sites)
    return x[:i] + [fn(x[i], rng)] + x[i + 1:]


def _fits(v: Any, tilt: str) -> bool:
    if tilt == "boundary":
        return _kind(v) == "ints"
    if tilt in ("corner", "tail"):
        return isinstance(v, (list, str)) or (tilt == "corner" and isinstance(v, int) and not isinstance(v, bool))
    return tilt == "wide" and _has(v, lambda u: isinstance(u, str))


def _has(v: Any, pred: Callable[[Any], bool], depth: int = 0) -> bool:
    if pred(v):
        return True
    return depth < 4 and isinstance(v, list) and any(_has(u, pred, depth + 1) for u in v[:50])


def _empty_like(v: Any) -> Any:
    return "" if isinstance(v, str) else [] if isinstance(v, list) else v


def _corner(v: Any, rng: Tilted) -> Any:
    kind = rng.corner
    if isinstance(v, int) and not isinstance(v, bool):
        return rng.choice((0, 1, -1, -v))  # never larger: see transform
    if not isinstance(v, (list, str)):
        return v
    if kind == "empty" or not v:
        return v[:0]
    if kind == "single":
        return v[rng.randrange(len(v))] if isinstance(v, str) else [rng.choice(v)]
    if kind == "equal":
        return v[0] * len(v) if isinstance(v, str) else [v[0]] * len(v)
    if kind == "empty_elems" and isinstance(v, list):
        return [_empty_like(u) for u in v]
    if kind == "extreme" and isinstance(v, list) and all(isinstance(u, int) and not isinstance(u, bool) for u in v):
        return [rng.choice((max(v), min(v))) for _ in v]
    return v


def _widen(v: Any, rng: Tilted, depth: int = 0) -> Any:
    """Strings with a few characters of the trial's wide class written over or put in."""
    if isinstance(v, str):
        extra = rng.wide or META
        out = list(v)
        for _ in range(rng.randint(1, 3)):
            c = rng.choice(extra)
            if out and rng.random() < 0.5:
                out[rng.randrange(len(out))] = c
            else:
                out.insert(rng.randint(0, len(out)), c)
        return "".join(out)
    if isinstance(v, list) and depth < 4:
        return [_widen(u, rng, depth + 1) if rng.random() < 0.5 else u for u in v]
    return v


def _boundary(v: Any, rng: Tilted) -> Any:
    """A list of ints moved to the trial's representation boundary: every item shifted by it (order and
    differences kept: a sentinel or an accumulator of fixed width is passed), or one or two items set to it
    (either sign, a neighbour included); a lone int made the trial's LONE_INTS value; anything else as is."""
    if _is_int(v) and rng.mutated:
        return -rng.lone if v < 0 else rng.lone
    if _kind(v) != "ints":
        return v
    if rng.random() < 0.5:
        shift = rng.choice((-1, 1)) * rng.base
        return [u + shift for u in v]
    out = list(v)
    for _ in range(rng.randint(1, 2)):
        out[rng.randrange(len(out))] = rng.choice((-1, 1)) * (rng.base + rng.choice((-1, 0, 1)))
    return out


def _lengthen(v: Any, rng: Tilted) -> Any:
    """v grown to the trial's tail length with items (characters) drawn from itself."""
    if not isinstance(v, (list, str)) or not v:
        return v
    pool = list(v)
    grown = pool + [rng.choice(pool) for _ in range(max(0, rng.tail - len(pool)))]
    return "".join(grown) if isinstance(v, str) else grown


# --------------------------------------------------------------------------- coincidences


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _kind(v: Any) -> str:
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "ints" if v and all(_is_int(u) for u in v[:64]) and _is_int(v[-1]) else "list"
    return "int" if _is_int(v) else "other"


def variant(v: Any, rng: random.Random) -> Any:
    """Another value agreeing with v on an aggregate: the same multiset in another order, the same sum
    (of the items, of the characters' code points, of the digits, of the set bits) with other items, the
    same length with other contents, the same absolute value. v itself where none applies."""
    kind = _kind(v)
    aggregate = getattr(rng, "aggregate", "")  # a coincidence trial's kind, else one at random
    r = {"order": 0.1, "sum": 0.5, "length": 0.9}[aggregate] if aggregate else rng.random()
    if kind == "int":
        if abs(v) >= 2 ** 31:  # a huge int reshuffled may turn an easy factorization into a hard one
            return -v
        digits = list(str(abs(v)))
        bits = list(bin(abs(v))[2:])
        if r < 0.35 and len(set(digits)) > 1:
            rng.shuffle(digits)
            return int("".join(digits).lstrip("0") or "0") * (-1 if v < 0 else 1)
        if r < 0.7 and len(set(bits)) > 1:
            rng.shuffle(bits)
            return int("".join(bits), 2) * (-1 if v < 0 else 1)
        return -v
    if kind not in ("str", "ints", "list") or len(v) < 1:
        return v
    if r < 0.3 and len(v) > 1:  # the same multiset, another order
        out = list(v)
        for _ in range(3):
            rng.shuffle(out)
            if out != list(v):
                break
        return "".join(out) if kind == "str" else out
    if r < 0.8 and kind == "ints" and len(v) > 1:  # the same sum, other items
        out = list(v)
        i, j = rng.sample(range(len(out)), 2)
        d = rng.choice((1, 1, 2, 3, max(1, abs(out[i]) // 2)))
        out[i] += d
        out[j] -= d
        return out
    if r < 0.8 and kind == "str":  # the same code point sum (of the string and of its set of characters)
        return _shift_chars(v, rng)
    # the same length, other contents drawn from v's own items: half the time a block repeated (equal to its
    # own rotation by the block, a period other than 1 and the length)
    pool = list(v)
    out = (rng.random() < 0.5 and _periodic(pool, rng)) or [rng.choice(pool) for _ in pool]
    return "".join(out) if kind == "str" else out


def _periodic(pool: list, rng: random.Random) -> list | None:
    """A block of p items drawn from pool, repeated to pool's length, p a proper divisor of it; None for a
    prime length or one below 4."""
    n = len(pool)
    periods = [p for p in range(2, n // 2 + 1) if n % p == 0]
    if not periods:
        return None
    p = rng.choice(periods)
    return [rng.choice(pool) for _ in range(p)] * (n // p)


@functools.lru_cache(maxsize=4096)
def _klass(c: str) -> tuple[bool, ...]:
    return c.islower(), c.isupper(), c.isdigit(), c.isspace(), c.isalpha(), c.isascii(), c.isprintable()


def _shift_chars(s: str, rng: random.Random) -> str:
    """Every a made chr(a+d) and every b chr(b-d), new characters of the same class and not in s, for the
    first of four shifts d (1-12) some pair of s's characters allows: the sum of the set of characters is
    kept, and the string's own where a and b occur equally often (such a pair is preferred)."""
    chars = sorted(set(s))
    if len(chars) < 2:
        return s
    taken, count = set(chars), collections.Counter(s)

    def moved(c: str, d: int) -> str | None:
        n = ord(c) + d
        m = chr(n) if 0 <= n <= 0x10FFFF else None
        return m if m is not None and m not in taken and _klass(m) == _klass(c) else None

    for d in rng.sample(range(1, 13), 4):
        ups = [(a, m) for a in chars if (m := moved(a, d)) is not None]
        downs = [(b, m) for b in chars if (m := moved(b, -d)) is not None]
        pairs = [(u, v) for u in ups for v in downs if u[0] != v[0] and u[1] != v[1]]
        even = [(u, v) for u, v in pairs if count[u[0]] == count[v[0]]]  # the string's sum kept as well
        if pairs:
            (a, ca), (b, cb) = rng.choice(even or pairs)
            return s.translate({ord(a): ca, ord(b): cb})
    return s


def coincide(x: Any, rng: random.Random) -> Any:
    """x with one part made a variant of another part of the same kind (items of one list), or of itself."""
    return _changed(_coincide_once, x, rng)


def _coincide_once(x: Any, rng: random.Random) -> Any:
    if isinstance(x, list) and len(x) >= 2 and rng.random() < 0.7:
        pair = _pair(x, rng)
        if pair is not None:
            i, j = pair
            return x[:j] + [variant(x[i], rng)] + x[j + 1:]
    return variant(x, rng)


def _pair(x: list, rng: random.Random) -> tuple[int, int] | None:
    """Two positions of x holding values of one kind (at most 8 draws: x may be long)."""
    for _ in range(8):
        i, j = rng.randrange(len(x)), rng.randrange(len(x))
        if i != j and _kind(x[i]) == _kind(x[j]) != "other":
            return i, j
    return None


def _changed(fn: Callable[[Any, random.Random], Any], x: Any, rng: random.Random) -> Any:
    """fn(x, rng), drawn again (up to 6 times) while it gives x back unchanged."""
    for _ in range(6):
        y = fn(x, rng)
        if y != x:
            return y
    return x


def _keyed(v: Any) -> str | None:
    """The kind of a value whose items have keys: a dict, a set, or a list of pairs (key, value)."""
    if isinstance(v, dict):
        return "dict"
    if isinstance(v, (set, frozenset)):
        return "set"
    if isinstance(v, list) and v and all(isinstance(u, (list, tuple)) and len(u) == 2 for u in v[:64]):
        return "pairs"
    return None


def _share(x: list, keyed: list[int], rng: random.Random) -> list | None:
    """Two arguments of one keyed kind made to share keys (items), a shared key holding another value in
    each where values can differ: "the first one wins" and "the last one wins" then part, as do a union and
    an intersection. None when no two arguments are of one kind, or nothing changed."""
    pairs = [(i, j) for i in keyed for j in keyed if i != j and _keyed(x[i]) == _keyed(x[j])]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    src, dst = x[i], x[j]
    if isinstance(src, (set, frozenset)):
        out: Any = type(dst)(set(dst) | set(rng.sample(sorted(src, key=repr), min(len(src), rng.randint(1, 3)))))
    else:
        items = list(src.items()) if isinstance(src, dict) else [tuple(u) for u in src]
        values = [v for _, v in items] + [v for _, v in (dst.items() if isinstance(dst, dict) else dst)]
        got = dict(dst) if isinstance(dst, dict) else list(dst)
        for k, v in rng.sample(items, min(len(items), rng.randint(1, 3))):
            other = [w for w in values if w != v] or [v]  # another value of the same kind where there is one
            w = rng.choice(other)
            if isinstance(got, dict):
                got[k] = w
            else:
                pair = type(src[0])((k, w))
                got.insert(rng.randint(0, len(got)), pair)
        out = got
    if out == dst:
        return None
    return x[:j] + [out] + x[j + 1:]


def _coincide_args(x: Any, rng: random.Random) -> Any:
    return _changed(_coincide_args_once, x, rng)


def _coincide_args_once(x: Any, rng: random.Random) -> Any:
    """An argument list: one argument made a variant of another argument (same_chars(s, variant of s)), the
    items of one argument made variants of each other (a tie in a sort key), or one argument varied."""
    if not isinstance(x, list) or not x:
        return x
    keyed = [i for i, u in enumerate(x) if _keyed(u) is not None]
    if len(keyed) > 1 and rng.random() < 0.5:
        shared = _share(x, keyed, rng)
        if shared is not None:
            return shared
    kinds = [_kind(u) for u in x]  # an argument list is short
    pairs = [(i, j) for i in range(len(x)) for j in range(len(x)) if i != j and kinds[i] == kinds[j] != "other"]
    r = rng.random()
    if pairs and r < 0.75:
        i, j = rng.choice(pairs)
        v = variant(x[i], rng)
        if v != x[i]:  # else a copy of x[i], no coincidence: vary one argument instead
            return x[:j] + [v] + x[j + 1:]
    sites = [i for i, k in enumerate(kinds) if k != "int"]  # a lone int varied is just another int
    if not sites:
        return x
    i = rng.choice(sites)
    inner = coincide(x[i], rng) if r < 0.9 else variant(x[i], rng)
    return x[:i] + [inner] + x[i + 1:]
