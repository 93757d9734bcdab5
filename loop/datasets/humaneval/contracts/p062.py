"""HumanEval/62 derivative: xs is a non-empty list of int coefficients (the zero-length polynomial is not
one the docstring describes)."""

from loop.oracles import gen


def contract(xs):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(xs, list) or not all(type(e) is int for e in xs):
        return "xs must be a list of int"
    if not xs:
        return "xs must be non-empty"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.int_list(rng, size, min_len=1)]
