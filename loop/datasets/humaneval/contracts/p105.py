"""HumanEval/105 by_length: arr is a list of int (may be empty); the elements in 1..9, sorted descending,
as their English names ("One" .. "Nine"); other elements ignored."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        return [gen.int_list(rng, size, 1, 9)]
    if r < 0.8:
        return [gen.int_list(rng, size, -2, 12)]
    return [gen.int_list(rng, size)]
