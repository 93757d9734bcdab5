"""HumanEval/35 max_element: l is a non-empty list of finite reals (int or float, no bool); the maximum of an empty list is a matter of taste."""

import math

from loop.oracles import gen


def _real(x):
    return type(x) is int or (type(x) is float and math.isfinite(x))


def contract(l):
    if not isinstance(l, list) or not all(_real(x) for x in l):
        return "l must be a list of finite reals"
    if not l:
        return "l must not be empty"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        return [[rng.randint(-10, 10) for _ in range(gen.length(rng, size, 1))]]
    if r < 0.6:
        return [[rng.randint(-(2 ** 70), -(2 ** 60)) for _ in range(gen.length(rng, size, 1))]]  # all negative
    if r < 0.75:
        return [gen.real_list(rng, size, min_len=1)]
    return [gen.int_list(rng, size, min_len=1)]
