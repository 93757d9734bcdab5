"""HumanEval/51 remove_vowels: text is a str of printable ASCII and whitespace (may be empty)."""

import string

from loop.oracles import gen

ALLOWED = set(string.printable)


def contract(text):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(text, str):
        return "text must be a str"
    if any(c not in ALLOWED for c in text):
        return "text must be printable ASCII"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, string.printable, gen.LETTERS + "\n ", "aeiouAEIOUyYbc")
    return [gen.text(rng, size, alphabet)]
