"""HumanEval/108 count_nums: arr is a list of int (may be empty); the number of elements whose signed digit
sum (the first digit negative for a negative number) is > 0."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    return None


def generate(rng, size):
    if rng.random() < 0.4:
        return [gen.int_list(rng, size, -200, 200)]
    return [gen.int_list(rng, size)]
