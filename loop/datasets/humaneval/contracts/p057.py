"""HumanEval/57 monotonic: l is a list of numbers (int or finite float, may be empty); non-strict
monotonicity ([4, 1, 1, 0] and [9, 9, 9, 9] are True in the tests)."""

import math

from loop.oracles import gen


def contract(l):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(l, list) or not all(type(e) in (int, float) and math.isfinite(e) for e in l):
        return "l must be a list of finite numbers"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    l = gen.int_list(rng, size) if rng.random() < 0.8 else gen.real_list(rng, size)
    r = rng.random()
    if r < 0.5:
        l = gen.tie(rng, sorted(l, reverse=r >= 0.3))  # a run that starts with or holds a tie, half the time
    if l and 0.3 <= r < 0.45 and rng.random() < 0.5:
        l = sorted(l) if rng.random() < 0.5 else sorted(l, reverse=True)
        i = rng.randrange(len(l))
        l[i] = rng.choice(l)  # almost monotonic
    return [l]
