"""HumanEval/144 simplify: x and n are str '<numerator>/<denominator>' of positive whole numbers."""

# x and n are str '<numerator>/<denominator>' of positive whole numbers (ASCII digits, no sign, no spaces; any
# size; leading zeros allowed: '05' is the whole number 5).

import re

from loop.oracles import gen

_FRACTION = re.compile(r"0*[1-9][0-9]*/0*[1-9][0-9]*")


def contract(x, n):
    for v in (x, n):
        if not isinstance(v, str) or _FRACTION.fullmatch(v) is None:
            return "x and n must be fractions '<numerator>/<denominator>' of positive whole numbers"
    return None


def _part(rng, size):
    return gen.integer(rng, size, 1) if rng.random() < 0.4 else rng.randint(1, 12)


def generate(rng, size):
    a, b, c, d = (_part(rng, size) for _ in range(4))
    r = rng.random()
    if r < 0.3:  # make the product whole
        d = rng.choice([v for v in (1, a, c, a * c) if v >= 1])
        b = 1 if rng.random() < 0.5 else b
        if (a * c) % (b * d):
            b = 1
    elif r < 0.4:  # near miss at float precision
        big = 10 ** rng.randint(16, 20)
        a, b, c, d = big + rng.choice((1, -1, 3)), 10, 1, 1
    x, n = "%d/%d" % (a, b), "%d/%d" % (c, d)
    if rng.random() < 0.05:
        x = "0" + x if rng.random() < 0.5 else x.replace("/", "/0")  # a leading zero: the same whole number
    return [x, n]


CANONICAL = """\
    # simplify("100000000000000001/10", "1/1"): "returns True if x * n evaluates to a whole number";
    # 100000000000000001/10 is not whole, but the canonical's float division rounds it to one.
    a, b = x.split("/")
    c, d = n.split("/")
    return (int(a) * int(c)) % (int(b) * int(d)) == 0
"""
FIXES = [(("100000000000000001/10", "1/1"), False), (("1/3", "30000000000000001/10000000000000000"), False)]
