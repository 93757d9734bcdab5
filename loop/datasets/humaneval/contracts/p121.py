"""HumanEval/121 solution: lst is a non-empty list of int; the sum of the odd elements at even (0-based)
positions."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(v) is int for v in lst):
        return "lst must be a list of int"
    if not lst:
        return "lst must be non-empty"
    return None


def generate(rng, size):
    if rng.random() < 0.4:
        return [gen.int_list(rng, size, -20, 20, min_len=1)]
    return [gen.int_list(rng, size, min_len=1)]
