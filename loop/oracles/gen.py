"""Building blocks for input generators written from a contract (HumanEval's per-problem generators).

Every function takes the trial's random.Random and its size (1 at the first trial, growing to
fuzz.MAX_SIZE), and mixes three kinds of value: small typical ones, the boundaries of the allowed domain,
and large ones whose magnitude or length grows with size (beyond 2**31 for integers, past 100 characters
for strings). Same rng state, same value.

Handed a `loop.oracles.reach.Tilted` random (the engine's corner, boundary, wide-alphabet and long-tail
trials), each block bends its draw that way within its declared range, and says so (`rng.honoured`).
"""

from __future__ import annotations

import random
import string
import unicodedata

from loop.oracles.reach import BOUNDARIES

DIGITS = string.digits
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
LETTERS = string.ascii_letters
VOWELS = "aeiouAEIOU"
# Non-ASCII characters, for contracts whose docstring allows any string: accented letters of both cases, a
# combining accent, caseless letters, characters that Unicode normalisation (NFKC/NFKD) changes or splits
# (½ ² ﬁ ſ, the Kelvin sign), symbols, an emoji, non-ASCII spaces. A contract keeps the ones its docstring
# fixes an answer for (`non_ascii(keep)`) and says why of the rest.
NON_ASCII = "éÉñÑßçöÖжЖσ中ア½²ﬁſ\u212a\u0301€°😀\u00a0\u2003"


def non_ascii(keep=lambda c: True) -> str:
    """The characters of NON_ASCII that `keep` admits."""
    return "".join(c for c in NON_ASCII if keep(c))


def lowercase_letter(c: str) -> bool:
    """c is a lowercase letter to any reader: ASCII a-z, or a non-ASCII letter that is lowercase or has no case
    ('é', 'ß', '中'), one code point that Unicode normalisation keeps (not 'ﬁ', 'ſ' or a titlecase 'ǅ')."""
    if c.isascii():
        return c in LOWER
    return c.isalpha() and not c.isupper() and unicodedata.normalize("NFKC", c) == c


LOWER_WIDE = non_ascii(lowercase_letter)  # the non-ASCII lowercase letters of NON_ASCII


# The draws below are random's own, taken without its layers of Python calls (an input generator's hot loop:
# 32,800 inputs per cold HumanEval batch, most of the parent's time): `_below(rng, n)` is `rng._randbelow(n)`,
# so `seq[_below(rng, len(seq))]` is `rng.choice(seq)` and `a + _below(rng, b - a + 1)` is `rng.randint(a, b)`,
# the same values from the same state (tests/oracles/test_gen.py holds them to random's public methods).
def _below(rng: random.Random, n: int) -> int:
    bits = rng.getrandbits
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def _randint(rng: random.Random, a: int, b: int) -> int:
    return a + _below(rng, b - a + 1)


def _choice(rng: random.Random, seq):
    return seq[_below(rng, len(seq))]


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    """n characters of alphabet, as n calls of rng.choice(alphabet) would draw them."""
    m = len(alphabet)
    k, bits = m.bit_length(), rng.getrandbits
    out = []
    for _ in range(n):
        r = bits(k)
        while r >= m:
            r = bits(k)
        out.append(alphabet[r])
    return "".join(out)


def length(rng: random.Random, size: int, lo: int = 0, hi: int | None = None) -> int:
    """A length in [lo, hi]: mostly up to 3*size, sometimes lo itself, sometimes long (up to 8*size)."""
    tilted = _tilted_length(rng, size, lo, hi)
    if tilted is not None:
        return tilted
    top = 3 * size if rng.random() < 0.85 else 8 * size
    if hi is not None:
        top = min(top, hi)
    top = max(lo, top)
    r = rng.random()
    if r < 0.1:
        return lo
    if r < 0.15:
        return top
    return _randint(rng, lo, top)


def _clamp(v: int, lo: int, hi: int | None) -> int:
    return max(lo, v if hi is None else min(hi, v))


def _tilted_length(rng, size: int, lo: int, hi: int | None) -> int | None:
    """A tilted trial's length: the tail's for the outermost length, a corner's (empty, one, the longest
    allowed; empty inner ones), or None for an ordinary draw."""
    tilt = getattr(rng, "tilt", None)
    if tilt not in ("tail", "corner"):
        return None
    rng.lengths += 1
    first = rng.lengths == 1
    if tilt == "tail":  # one long outer length; the ones inside it short, so the whole stays 10-20x
        if not first:
            return _clamp(rng.randint(0, 3), lo, hi)
        rng.honoured = True
        return _clamp(rng.tail, lo, hi)
    kind = rng.corner
    if kind == "empty" or (kind == "empty_elems" and not first):
        rng.honoured = True
        return lo
    if kind == "single" and first:
        rng.honoured = True
        return _clamp(1, lo, hi)
    if kind == "extreme" and first and hi is not None and hi - lo <= 8 * size:
        rng.honoured = True
        return hi
    return None


def _tilted_int(rng, lo: int | None, hi: int | None) -> int | None:
    """A boundary trial's integer (2**31, 2**53, 10**k, ... and their neighbours, either sign, or the end of
    the declared range nearest it) or a corner's extreme (an end of the range), or None."""
    tilt = getattr(rng, "tilt", None)
    if tilt == "corner" and getattr(rng, "corner", None) == "extreme" and rng.random() < 0.7:
        ends = [v for v in (lo, hi) if v is not None]
        rng.honoured = True
        if ends and rng.random() < 0.6:
            return rng.choice(ends) + rng.choice((0, 0, 1, -1))
        tilt = "boundary"
    if tilt != "boundary" or rng.random() >= 0.6:
        return None
    rng.honoured = True
    focus = getattr(rng, "base", 2 ** 31)
    v = (focus + rng.choice((-1, 0, 1)) if rng.random() < 0.7 else rng.choice(BOUNDARIES)) * rng.choice((1, 1, -1))
    if lo is not None and v < lo:
        return lo
    if hi is not None and v > hi:
        return hi
    return v


def integer(rng: random.Random, size: int, lo: int | None = None, hi: int | None = None) -> int:
    """An int in [lo, hi] (either end open when None): small values, the ends, powers of two and their
    neighbours, and values up to about 2**(2*size) in magnitude."""
    tilted = _tilted_int(rng, lo, hi)
    if tilted is not None:
        return _into(rng, tilted, lo, hi)
    bits = max(3, 2 * size)
    r = rng.random()
    if r < 0.45:
        v = _randint(rng, -10, 20)
    elif r < 0.6:
        v = _randint(rng, -(2 ** min(bits, 16)), 2 ** min(bits, 16))
    elif r < 0.75:
        v = _choice(rng, (-1, 0, 1)) + _choice(rng, (-1, 1)) * 2 ** _randint(rng, 0, bits)
    elif r < 0.85:
        v = _choice(rng, (2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 63 - 1, 2 ** 63, 10 ** 9 + 7))
        v = v if rng.random() < 0.7 else -v
    else:
        v = _randint(rng, -(2 ** bits), 2 ** bits)
    if lo is not None and rng.random() < 0.08:
        v = lo + _randint(rng, 0, 2)
    if hi is not None and rng.random() < 0.08:
        v = hi - _randint(rng, 0, 2)
    return _into(rng, v, lo, hi)


def _into(rng, v, lo, hi):
    """v moved into [lo, hi]: a uniform draw when both ends are set, else reflected off the one end."""
    if lo is not None and hi is not None:
        return v if lo <= v <= hi else (_randint(rng, lo, hi) if isinstance(v, int) else rng.uniform(lo, hi))
    if lo is not None and v < lo:
        return lo + (lo - v)
    if hi is not None and v > hi:
        return hi - (v - hi)
    return v


def real(rng: random.Random, size: int, lo: float | None = None, hi: float | None = None) -> float:
    """A float in [lo, hi]: small, integral, tiny, huge (up to 10**size), with the ends now and then."""
    if getattr(rng, "tilt", None) in ("corner", "boundary") and rng.random() < 0.5:
        rng.honoured = True
        ends = [float(v) for v in (lo, hi) if v is not None]
        return float(_into(rng, rng.choice(ends + [0.0, -0.0, 1e-300, 2.0 ** 53, 1e15, -1e15, 0.1]), lo, hi))
    r = rng.random()
    if r < 0.4:
        v = round(rng.uniform(-10, 10), rng.randint(0, 3))
    elif r < 0.55:
        v = float(rng.randint(-20, 20))
    elif r < 0.65:
        v = rng.choice((0.0, -0.0, 0.5, -0.5, 1e-9, -1e-9))
    elif r < 0.8:
        v = rng.uniform(-1, 1) * 10 ** rng.randint(0, min(size, 15))
    else:
        v = rng.uniform(-1000, 1000)
    if lo is not None and rng.random() < 0.08:
        v = float(lo)
    if hi is not None and rng.random() < 0.08:
        v = float(hi)
    v = _into(rng, v, lo, hi)
    return float(v)


def text(rng: random.Random, size: int, alphabet: str = LOWER, lo: int = 0, hi: int | None = None) -> str:
    """A string over alphabet; runs of one character now and then (repeats and ties). In a wide trial the
    alphabet takes in the trial's class of odd characters (metacharacters, punctuation, whitespace kinds,
    non-ASCII), a third of the characters drawn from it."""
    n = length(rng, size, lo, hi)
    if n and getattr(rng, "tilt", None) == "corner" and rng.corner == "equal":
        rng.honoured = True
        return rng.choice(alphabet) * n
    wide = getattr(rng, "wide", "")
    if wide:
        rng.honoured = True
        pool = alphabet + wide  # a third of the draws from wide, whatever the two lengths
        weights = [2 * len(wide)] * len(alphabet) + [len(alphabet)] * len(wide)
        return "".join(rng.choices(pool, weights, k=n))
    if n and rng.random() < 0.15:
        return _choice(rng, alphabet) * n
    return _chars(rng, alphabet, n)


def words(rng: random.Random, size: int, alphabet: str = LOWER, sep: str = " ", lo: int = 0,
          hi: int | None = None, word_max: int = 8) -> str:
    """Words over alphabet joined by sep (single separators, no leading or trailing one)."""
    if hi is None and getattr(rng, "tilt", None) != "tail":  # a long tail's words are not capped at size
        hi = max(lo, size)
    n = length(rng, size, lo, hi)
    return sep.join(text(rng, 1, alphabet, 1, rng.randint(1, word_max)) for _ in range(n))


def int_list(rng: random.Random, size: int, lo: int | None = None, hi: int | None = None,
             min_len: int = 0, max_len: int | None = None, unique: bool = False) -> list[int]:
    """A list of ints in [lo, hi]; duplicates and sorted/reversed runs now and then (unless unique)."""
    n = length(rng, size, min_len, max_len)
    if n and not unique and getattr(rng, "tilt", None) == "corner" and rng.corner == "equal":
        rng.honoured = True
        return [integer(rng, size, lo, hi)] * n
    pool_small = rng.random() < 0.3
    out: list[int] = []
    seen: set[int] = set()
    tries = 0
    while len(out) < n and tries < 20 * n + 20:
        tries += 1
        v = integer(rng, 2 if pool_small else size, lo, hi)
        if unique and v in seen:
            continue
        if not unique and out and rng.random() < 0.1:
            v = _choice(rng, out)
        seen.add(v)
        out.append(v)
    r = rng.random()
    if r < 0.15:
        out.sort(reverse=r >= 0.1)
        if not unique:
            tie(rng, out)
    return out


def tie(rng: random.Random, run: list) -> list:
    """A sorted run given a tie half the time, at its start or inside it (an item set to its neighbour's
    value keeps it sorted): a candidate that reads the direction from the first two items, or wants every
    step strict, meets its case."""
    if len(run) > 1 and rng.random() < 0.5:
        i = 0 if rng.random() < 0.5 else rng.randrange(len(run) - 1)
        run[i + 1] = run[i]
    return run


def real_list(rng: random.Random, size: int, lo: float | None = None, hi: float | None = None,
              min_len: int = 0, max_len: int | None = None) -> list[float]:
    n = length(rng, size, min_len, max_len)
    out: list[float] = []
    for _ in range(n):
        out.append(rng.choice(out) if out and rng.random() < 0.1 else real(rng, size, lo, hi))
    return out


def pick(rng: random.Random, *choices):
    """One of the choices; a callable choice is called with no arguments."""
    c = rng.choice(choices)
    return c() if callable(c) else c


def brackets(rng: random.Random, size: int, pair: str = "()") -> str:
    """A string over one bracket pair: balanced (45%), balanced with one edit (deleted, inserted or flipped
    bracket, or reversed: 30%), or any string over the pair (25%). A long tail's is nested as deep as the tail
    is long (a random walk that long stays shallow: recursion one level per bracket would pass)."""
    opening, closing = pair
    r = rng.random()
    n = length(rng, size)
    if getattr(rng, "tilt", None) == "tail":
        return opening * n + closing * n
    if r >= 0.75:
        return text(rng, size, pair)
    out, depth = [], 0
    for _ in range(n):
        if depth and rng.random() < 0.5:
            out.append(closing)
            depth -= 1
        else:
            out.append(opening)
            depth += 1
    s = "".join(out) + closing * depth
    if r < 0.45 or not s:
        return s
    i = rng.randrange(len(s))
    return pick(rng, lambda: s[:i] + s[i + 1:], lambda: s[:i] + rng.choice(pair) + s[i:],
                lambda: s[:i] + (opening if s[i] == closing else closing) + s[i + 1:], lambda: s[::-1])
