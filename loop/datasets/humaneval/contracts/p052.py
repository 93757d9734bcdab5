"""HumanEval/52 below_threshold: l is a list of numbers (int or finite float, may be empty), t an int."""

import math

from loop.oracles import gen


def contract(l, t):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(l, list) or not all(type(e) in (int, float) and math.isfinite(e) for e in l):
        return "l must be a list of numbers"
    if type(t) is not int:
        return "t must be an int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    l = gen.int_list(rng, size) if rng.random() < 0.8 else gen.real_list(rng, size)
    if l and rng.random() < 0.4:
        t = math.floor(max(l)) + rng.choice((-1, 0, 1, 2))  # around the largest element
    else:
        t = gen.integer(rng, size)
    return [l, t]
