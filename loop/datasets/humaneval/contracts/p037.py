"""HumanEval/37 sort_even: l is a list of int (may be empty)."""

from loop.oracles import gen


def contract(l):
    if not isinstance(l, list) or not all(type(x) is int for x in l):
        return "l must be a list of int"
    return None


def generate(rng, size):
    if rng.random() < 0.5:
        return [[rng.randint(-10, 10) for _ in range(gen.length(rng, size))]]
    return [gen.int_list(rng, size)]
