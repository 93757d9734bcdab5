"""HumanEval/137 compare_one: a and b are int, float or '-?d+([.,]d+)?' str, of at most 15 significant digits ('.5' and '1.' are not "real numbers" as the examples write them)."""

# a and b are each an int, a finite float or a str '-?digits([.,]digits)?' (ASCII digits); all of at most 15
# significant digits (|int| < 10**15, floats that round-trip through 15 digits, strings of at most 15 digits),
# so that the values compare the same as real numbers and as floats.

import math
import re

from loop.oracles import gen

_NUM = re.compile(r"-?[0-9]+([.,][0-9]+)?")


def _why(v):
    if type(v) is int:
        return None if abs(v) < 10 ** 15 else "an int must be below 10**15 in magnitude"
    if type(v) is float:
        if not math.isfinite(v):
            return "a float must be finite"
        if abs(v) >= 1e15 or float("%.15g" % v) != v:
            return "a float must have at most 15 significant digits"
        return None
    if isinstance(v, str):
        if _NUM.fullmatch(v) is None:
            return "a str must look like -12, 3.5 or 3,5 (ASCII digits)"
        if sum(c.isdigit() for c in v) > 15:
            return "a str must have at most 15 digits"
        return None
    return "a and b must be int, float or str"


def contract(a, b):
    return _why(a) or _why(b)


def _value(rng, size):
    r = rng.random()
    if r < 0.35:
        return gen.integer(rng, min(size, 24), -(10 ** 15) + 1, 10 ** 15 - 1)
    if r < 0.65:
        return float("%.*g" % (rng.randint(1, 15), gen.real(rng, size, -1e14, 1e14)))
    k = rng.randint(1, 15)
    digits = "".join(rng.choice("0123456789") for _ in range(k))
    if rng.random() < 0.5:
        digits = digits.lstrip("0") or "0"
    if len(digits) > 1 and rng.random() < 0.6:
        i = rng.randint(1, len(digits) - 1)
        digits = digits[:i] + rng.choice(".,") + digits[i:]
    return ("-" if rng.random() < 0.3 else "") + digits


def _same(rng, v):
    """Another representation of v's value (or a near one)."""
    if type(v) is int:
        return rng.choice((str(v), float(v), v, v + rng.choice((-1, 1))))
    if type(v) is float:
        s = repr(v)
        if "e" not in s:
            return rng.choice((s, s.replace(".", ","), v, int(v) if v.is_integer() else v))
        return v
    return rng.choice((v.replace(",", "."), v.replace(".", ","), v))


def generate(rng, size):
    a = _value(rng, size)
    b = _same(rng, a) if rng.random() < 0.35 else _value(rng, size)
    if contract(a, b) is not None:  # e.g. an int near 10**15 turned to a str of 16 digits
        b = _value(rng, size)
    if contract(a, b) is not None:
        a, b = 1, 2.5
    return [a, b] if rng.random() < 0.5 else [b, a]
