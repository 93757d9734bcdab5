"""HumanEval/45 triangle_area: a (side length) and h (height) are positive numbers (int or finite float)."""

import math

from loop.oracles import gen


def _positive(v):
    return type(v) in (int, float) and math.isfinite(v) and v > 0


def contract(a, h):
    """None when the docstring allows these arguments, else a short reason."""
    if not _positive(a) or not _positive(h):
        return "a and h must be positive numbers"
    return None


def _one(rng, size):
    if rng.random() < 0.6:
        return gen.integer(rng, size, lo=1)
    v = abs(gen.real(rng, size))
    return v if v > 0 else 0.5


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [_one(rng, size), _one(rng, size)]
