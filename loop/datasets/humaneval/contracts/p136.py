"""HumanEval/136 largest_smallest_integers: lst is a list of int (may be empty)."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.15:
        return [gen.int_list(rng, size, 0)]
    if r < 0.3:
        return [gen.int_list(rng, size, None, 0)]
    if r < 0.45:
        return [gen.int_list(rng, size, -3, 3)]
    return [gen.int_list(rng, size)]
