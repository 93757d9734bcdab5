"""HumanEval/66 digitSum: s is a str of printable ASCII characters and whitespace (may be empty)."""

import string

from loop.oracles import gen

ALLOWED = set(string.printable)


def contract(s):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    if any(c not in ALLOWED for c in s):
        return "s must be ASCII (the docstring sums ASCII codes)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, string.printable, gen.LETTERS + " ?", gen.UPPER, gen.LOWER)
    return [gen.text(rng, size, alphabet)]
