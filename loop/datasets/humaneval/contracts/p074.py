"""HumanEval/74 total_match: lst1 and lst2 are lists of str (may be empty); a str's number of chars is its
len, non-ASCII ones included (one 'é' is one char, two bytes in UTF-8); combining marks and surrogates are left
out (is 'e' and a combining accent one char or two? a matter of taste)."""

import unicodedata

from loop.oracles import gen


def _plain(c):
    return not unicodedata.combining(c) and unicodedata.category(c) != "Cs"


def contract(lst1, lst2):
    """None when the docstring allows these arguments, else a short reason."""
    for lst in (lst1, lst2):
        if not isinstance(lst, list) or not all(isinstance(s, str) for s in lst):
            return "lst1 and lst2 must be lists of str"
        if not all(_plain(c) for s in lst for c in s):
            return "a combining mark or a surrogate (how many chars is 'e' + '\\u0301'?)"
    return None


_WIDE = gen.non_ascii(_plain)


def _strings(rng, size):
    alphabet = gen.LETTERS + gen.DIGITS if rng.random() < 0.7 else gen.LOWER + _WIDE
    return [gen.text(rng, 2 if rng.random() < 0.5 else size, alphabet)
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
