"""HumanEval/66 digitSum: s is any str (may be empty) whose upper characters are ASCII: the docstring sums "the
upper characters only' ASCII codes", which fixes nothing for 'É'; lowercase and caseless non-ASCII characters
('é', '中', '€') count for nothing under every reading, so they stay in."""

import string

from loop.oracles import gen


def _plain(c):
    # a caseless letter ('中') is not upper, but `c == c.upper()` would count it: left out as a matter of taste
    return c.isascii() or c.islower() or not (c.isupper() or c.isalpha())


def contract(s):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    if not all(map(_plain, s)):
        return "a non-ASCII upper or caseless letter (the docstring sums ASCII codes)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, string.printable, gen.LETTERS + " ?", gen.UPPER, gen.LOWER, gen.UPPER + gen.non_ascii(_plain))
    return [gen.text(rng, size, alphabet)]
