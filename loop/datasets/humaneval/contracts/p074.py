"""HumanEval/74 total_match: lst1 and lst2 are lists of str over printable ASCII (may be empty)."""

import string

from loop.oracles import gen

ALLOWED = set(string.printable)


def contract(lst1, lst2):
    """None when the docstring allows these arguments, else a short reason."""
    for lst in (lst1, lst2):
        if not isinstance(lst, list) or not all(isinstance(s, str) for s in lst):
            return "lst1 and lst2 must be lists of str"
        if any(c not in ALLOWED for s in lst for c in s):
            return "strings must be ASCII"
    return None


def _strings(rng, size):
    return [gen.text(rng, 2 if rng.random() < 0.5 else size, gen.LETTERS + gen.DIGITS)
            for _ in range(gen.length(rng, size))]


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    lst1 = _strings(rng, size)
    if rng.random() < 0.35:
        # same total length, other strings: the tie goes to the first list
        total = sum(map(len, lst1))
        lst2 = []
        while total:
            k = rng.randint(1, total)
            lst2.append(gen.text(rng, 1, gen.LOWER, k, k))
            total -= k
    else:
        lst2 = _strings(rng, size)
    return [lst1, lst2] if rng.random() < 0.5 else [lst2, lst1]
