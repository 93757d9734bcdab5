"""HumanEval/110 exchange: lst1 and lst2 are non-empty lists of int; "YES" exactly when lst2 has at least as
many even elements as lst1 has odd ones, else "NO"."""

from loop.oracles import gen


def contract(lst1, lst2):
    for lst in (lst1, lst2):
        if not isinstance(lst, list) or not all(type(v) is int for v in lst):
            return "lst1 and lst2 must be lists of int"
        if not lst:
            return "the lists must be non-empty"
    return None


def generate(rng, size):
    if rng.random() < 0.5:
        return [gen.int_list(rng, size, -9, 9, min_len=1), gen.int_list(rng, size, -9, 9, min_len=1)]
    return [gen.int_list(rng, size, min_len=1), gen.int_list(rng, size, min_len=1)]
