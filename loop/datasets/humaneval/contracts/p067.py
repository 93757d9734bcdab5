"""HumanEval/67 fruit_distribution: s is exactly "<a> apples and <b> oranges" (a, b non-negative decimal
ints without leading zeros), n an int with n >= a + b (the mango count is not negative)."""

import re

from loop.oracles import gen

_FORMAT = re.compile(r"(0|[1-9][0-9]*) apples and (0|[1-9][0-9]*) oranges")


def contract(s, n):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    m = _FORMAT.fullmatch(s)
    if m is None:
        return 's must read "<a> apples and <b> oranges"'
    if type(n) is not int:
        return "n must be an int"
    if n < int(m.group(1)) + int(m.group(2)):
        return "n must be at least apples + oranges"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    a = gen.integer(rng, size, lo=0)
    b = gen.integer(rng, size, lo=0)
    n = a + b + gen.pick(rng, 0, lambda: rng.randint(0, 20), lambda: gen.integer(rng, size, lo=0))
    return [f"{a} apples and {b} oranges", n]
