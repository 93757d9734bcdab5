"""HumanEval/128 prod_signs: arr is a list of int (may be empty)."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(x) is int for x in arr):
        return "arr must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.2:
        return [gen.int_list(rng, size, -3, 3)]
    if r < 0.5:
        return [[v for v in gen.int_list(rng, size) if v != 0] or [rng.choice((-1, 1))]]
    return [gen.int_list(rng, size)]
