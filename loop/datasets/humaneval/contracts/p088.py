"""HumanEval/88 sort_array: array is a list of non-negative int (may be empty); a sorted copy, ascending when
first + last is odd, descending when even."""

from loop.oracles import gen


def contract(array):
    if not isinstance(array, list) or not all(type(x) is int for x in array):
        return "array must be a list of int"
    if any(x < 0 for x in array):
        return "the integers must be non-negative"
    return None


def generate(rng, size):
    return [gen.int_list(rng, size, lo=0)]
