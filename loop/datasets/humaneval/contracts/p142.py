"""HumanEval/142 sum_squares: lst is a list of int (may be empty)."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    return None


def generate(rng, size):
    if rng.random() < 0.3:
        return [gen.int_list(rng, size, -20, 40)]
    return [gen.int_list(rng, size)]
