"""HumanEval/42 incr_list: l is a list of int (may be empty)."""

from loop.oracles import gen


def contract(l):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(l, list) or not all(type(e) is int for e in l):
        return "l must be a list of int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.int_list(rng, size)]
