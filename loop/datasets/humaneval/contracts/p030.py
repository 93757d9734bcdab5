"""HumanEval/30 get_positive: l is a list (may be empty) of finite reals (int or float, no bool)."""

import math

from loop.oracles import gen


def _real(x):
    return type(x) is int or (type(x) is float and math.isfinite(x))


def contract(l):
    if not isinstance(l, list) or not all(_real(x) for x in l):
        return "l must be a list of finite reals"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        return [[rng.randint(-10, 10) for _ in range(gen.length(rng, size))]]
    if r < 0.7:
        return [[rng.choice((0.0, -0.0, 1e-9, -1e-9, 0.5, -2.5, 0, 1, -1)) for _ in range(gen.length(rng, size))]]
    if r < 0.85:
        return [gen.real_list(rng, size)]
    return [gen.int_list(rng, size)]
