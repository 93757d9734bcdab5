"""HumanEval/85 add: lst is a non-empty list of int; the sum of the even elements at odd indices."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    if not lst:
        return "lst must be non-empty"
    return None


def generate(rng, size):
    return [gen.int_list(rng, size, min_len=1)]
