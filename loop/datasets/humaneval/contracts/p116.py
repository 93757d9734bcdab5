"""HumanEval/116 sort_array: arr is a list of int (may be empty), all non-negative (the docstring) or all
negative (as in the tests, where a negative number's ones are those of its absolute value); sorted by the
count of ones in binary, then by value."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    if not (all(v >= 0 for v in arr) or all(v < 0 for v in arr)):
        return "the integers must be all non-negative (or all negative, as in the tests)"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        arr = gen.int_list(rng, size, 0, 64)
    elif r < 0.85:
        arr = gen.int_list(rng, size, 0)
    else:
        arr = gen.int_list(rng, size, None, -1)
    return [arr]
