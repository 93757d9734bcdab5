"""HumanEval/0 has_close_elements: numbers is a list (may be empty) of finite reals (int or float, |x| <= 1e15), threshold a finite real (a negative one: no pair is closer, False), and no pair's distance lies within rounding error of the threshold unless another pair is clearly closer."""

import math
from fractions import Fraction

from loop.oracles import gen

_BOUND = 1e15


def _real(x):
    if type(x) is int:
        return abs(x) <= _BOUND
    return type(x) is float and math.isfinite(x) and abs(x) <= _BOUND


def _exact_tie(a, b, threshold):
    """b - a equals the threshold exactly, and every float way of comparing them says so: not closer."""
    return (Fraction(b) - Fraction(a) == Fraction(threshold) and b - a == threshold
            and a + threshold == b and b - threshold == a)


def _ambiguous(numbers, threshold):
    """Does rounding decide the answer (a distance equal to the threshold up to float error)?"""
    if threshold <= 0:
        return False  # no distance is below 0 (or below a negative threshold)
    s = sorted(numbers)
    near = False
    for a, b in zip(s, s[1:]):
        d = b - a
        m = 1e-9 * max(abs(a), abs(b), abs(threshold))
        if d < threshold - m:
            return False  # clearly True whatever the other pairs do
        if abs(d - threshold) <= m and not _exact_tie(a, b, threshold):
            near = True
    return near


def contract(numbers, threshold):
    if not isinstance(numbers, list) or not all(_real(x) for x in numbers):
        return "numbers must be a list of finite reals"
    if not _real(threshold):
        return "threshold must be a finite real"
    if _ambiguous(numbers, threshold):
        return "a distance equals the threshold up to rounding"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    r = rng.random()
    if r < 0.4:
        numbers = [round(rng.uniform(-10, 10), rng.randint(0, 2)) for _ in range(n)]
    elif r < 0.5:
        numbers = [rng.randint(-20, 20) for _ in range(n)]
    else:
        numbers = gen.real_list(rng, size, -_BOUND, _BOUND, max_len=n)
    for i in range(len(numbers)):
        if i and rng.random() < 0.05:
            numbers[i] = numbers[rng.randrange(i)]  # exact duplicates
    s = sorted(numbers)
    gaps = [b - a for a, b in zip(s, s[1:])]
    r = rng.random()
    if gaps and r < 0.5:
        t = rng.choice(gaps) * rng.choice((0.5, 0.999, 1.001, 2.0, 1.0))
    elif r < 0.6:
        t = 0.0
    elif r < 0.7:
        t = rng.choice((1.0, 0.5, 0.3, 0.05, 1e-9))
    else:
        t = abs(gen.real(rng, size, -_BOUND, _BOUND))
    t = min(abs(float(t)), _BOUND)
    if rng.random() < 0.05:
        return [numbers, -t]  # negative: no two numbers are closer than it
    for _ in range(60):
        if not _ambiguous(numbers, t):
            break
        t = min(t * 1.5 + 1e-9, _BOUND)
    else:
        t = 0.0
    return [numbers, t]
