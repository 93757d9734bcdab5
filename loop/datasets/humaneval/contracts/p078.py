"""HumanEval/78 hex_key: num is a str of hexadecimal digits 0-9A-F (uppercase, may be empty), or the empty
list (the tests call hex_key([]))."""

from loop.oracles import gen

HEX = "0123456789ABCDEF"


def contract(num):
    """None when the docstring allows these arguments, else a short reason."""
    if isinstance(num, list) and not num:
        return None  # the problem's own test passes []
    if not isinstance(num, str):
        return "num must be a str"
    if any(c not in HEX for c in num):
        return "num must be uppercase hexadecimal digits"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    if rng.random() < 0.03:
        return [[]]
    alphabet = gen.pick(rng, HEX, "2357BD", "014689ACEF")
    return [gen.text(rng, size, alphabet)]
