"""HumanEval/21 rescale_to_unit: numbers is a list of at least two finite reals (int or float, |x| <= 1e12), not all equal, whose spread max-min is at least 1e-6 of the largest magnitude (else rounding swamps the result)."""

import math

from loop.oracles import gen

_BOUND = 1e12


def _real(x):
    if type(x) is int:
        return abs(x) <= _BOUND
    return type(x) is float and math.isfinite(x) and abs(x) <= _BOUND


def contract(numbers):
    if not isinstance(numbers, list) or not all(_real(x) for x in numbers):
        return "numbers must be a list of finite reals with |x| <= 1e12"
    if len(numbers) < 2:
        return "numbers must have at least two elements"
    lo, hi = min(numbers), max(numbers)
    if hi == lo:
        return "the numbers must not all be equal"
    if hi - lo < 1e-6 * max(abs(lo), abs(hi)):
        return "the spread is too small for float rounding"
    return None


def generate(rng, size):
    for _ in range(50):
        r = rng.random()
        n = gen.length(rng, size, 2)
        if r < 0.4:
            numbers = [round(rng.uniform(-10, 10), rng.randint(0, 2)) for _ in range(n)]
        elif r < 0.5:
            numbers = [rng.randint(-100, 100) for _ in range(n)]
        elif r < 0.6:
            numbers = [rng.choice((0.0, 1.0))] * (n - 1)
            numbers.insert(rng.randint(0, n - 1), rng.choice((-1.0, 2.0, 0.5)))
        else:
            numbers = gen.real_list(rng, size, -_BOUND, _BOUND, min_len=2)
        if contract(numbers) is None:
            return [numbers]
    return [[2.0, 49.9]]
