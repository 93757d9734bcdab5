"""HumanEval/4 mean_absolute_deviation: numbers is a non-empty list of finite reals (int or float) with |x| <= 1e6 (the mean of an empty list is undefined; the bound keeps float rounding under the tolerance)."""

import math

from loop.oracles import gen

_BOUND = 1e6


def _real(x):
    if type(x) is int:
        return abs(x) <= _BOUND
    return type(x) is float and math.isfinite(x) and abs(x) <= _BOUND


def contract(numbers):
    if not isinstance(numbers, list) or not all(_real(x) for x in numbers):
        return "numbers must be a list of finite reals with |x| <= 1e6"
    if not numbers:
        return "numbers must not be empty"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        n = gen.length(rng, size, 1)
        return [[round(rng.uniform(-10, 10), rng.randint(0, 2)) for _ in range(n)]]
    if r < 0.5:
        n = gen.length(rng, size, 1)
        return [[rng.randint(-100, 100) for _ in range(n)]]
    if r < 0.55:
        return [[float(rng.randint(-5, 5))] * gen.length(rng, size, 1)]
    return [gen.real_list(rng, size, -_BOUND, _BOUND, min_len=1)]
