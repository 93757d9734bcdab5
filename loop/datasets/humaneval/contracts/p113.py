"""HumanEval/113 odd_count: lst is a list (may be empty) of non-empty strs of ASCII digits; per string the
sentence with every 'i' replaced by its count of odd digits."""

from loop.oracles import gen

_DIGITS = set(gen.DIGITS)


def contract(lst):
    if not isinstance(lst, list) or not all(isinstance(s, str) for s in lst):
        return "lst must be a list of str"
    if not all(s and set(s) <= _DIGITS for s in lst):
        return "each string must be one or more ASCII digits"
    return None


def generate(rng, size):
    return [[gen.text(rng, size, rng.choice((gen.DIGITS, "13579", "02468")), 1)
             for _ in range(gen.length(rng, size, 0, 2 * size))]]
