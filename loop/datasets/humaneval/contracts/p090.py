"""HumanEval/90 next_smallest: lst is a list of int (may be empty, duplicates allowed); the second smallest
distinct value, or None when there are fewer than two distinct values."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.15:
        v = gen.integer(rng, size)
        return [[v] * gen.length(rng, size)]
    if r < 0.3:
        return [gen.int_list(rng, size, -2, 2)]
    return [gen.int_list(rng, size)]
