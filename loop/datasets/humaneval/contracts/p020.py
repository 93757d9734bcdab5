"""HumanEval/20 find_closest_elements: numbers is a list of at least two finite reals (int or float, |x| <= 1e15), with no two pair distances that differ only by float rounding."""

import math

from loop.oracles import gen

_BOUND = 1e15


def _real(x):
    if type(x) is int:
        return abs(x) <= _BOUND
    return type(x) is float and math.isfinite(x) and abs(x) <= _BOUND


def _gaps(numbers):
    s = sorted(numbers)
    return [(b - a, a, b) for a, b in zip(s, s[1:])]


def contract(numbers):
    if not isinstance(numbers, list) or not all(_real(x) for x in numbers):
        return "numbers must be a list of finite reals"
    if len(numbers) < 2:
        return "numbers must have at least two elements"
    gaps = _gaps(numbers)
    dmin = min(d for d, _, _ in gaps)
    for d, a, b in gaps:
        if d != dmin and d - dmin <= 1e-9 * max(abs(a), abs(b)):
            return "two distances differ only by rounding"
    return None


def equivalent(args, got, want):
    """Ties: any pair of elements (at two positions) at the smallest distance, smaller one first."""
    try:
        numbers = args[0]
        if type(got) is not tuple or len(got) != 2:
            return False
        a, b = got
        if not (type(a) in (int, float) and type(b) in (int, float)):
            return False
        if not a <= b:
            return False
        if a == b:
            if sum(1 for x in numbers if x == a) < 2:
                return False
        elif not (any(x == a for x in numbers) and any(x == b for x in numbers)):
            return False
        return b - a == min(d for d, _, _ in _gaps(numbers))
    except Exception:
        return False


def generate(rng, size):
    for _ in range(50):
        n = gen.length(rng, size, 2, 120)
        r = rng.random()
        if r < 0.4:
            numbers = [round(rng.uniform(-10, 10), rng.randint(0, 1)) for _ in range(n)]
        elif r < 0.55:
            numbers = [rng.randint(-20, 20) for _ in range(n)]  # exact ties
        elif r < 0.65:
            k = rng.randint(1, 3)
            numbers = [float(i * k) for i in range(n)]  # every adjacent pair ties
            rng.shuffle(numbers)
        else:
            numbers = gen.real_list(rng, size, -_BOUND, _BOUND, min_len=2, max_len=120)
        if contract(numbers) is None:
            return [numbers]
    return [[1.0, 2.0, 3.0, 4.0, 5.0, 2.2]]
