"""HumanEval/47 median: l is a non-empty list of numbers (int or finite float, magnitude <= 10**15 so the
even-length average is a float that means one thing)."""

import math

from loop.oracles import gen

LIMIT = 10 ** 15


def contract(l):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(l, list) or not all(type(e) in (int, float) for e in l):
        return "l must be a list of numbers"
    if not l:
        return "l must be non-empty"
    if not all(math.isfinite(e) and abs(e) <= LIMIT for e in l):
        return "elements must be finite, |x| <= 10**15"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    if rng.random() < 0.75:
        return [gen.int_list(rng, size, lo=-LIMIT, hi=LIMIT, min_len=1)]
    return [gen.real_list(rng, min(size, 12), lo=-1e12, hi=1e12, min_len=1)]
