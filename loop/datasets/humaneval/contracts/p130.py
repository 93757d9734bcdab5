"""HumanEval/130 tri: n is a non-negative int (generated up to ~320: a recursive solution stays in its depth)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must be non-negative"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.6:
        return [rng.randint(0, 12)]
    if r < 0.9:
        return [gen.length(rng, size)]
    return [rng.randint(0, 300)]
