"""HumanEval/70 strange_sort_list: lst is a list of int (may be empty, duplicates allowed)."""

from loop.oracles import gen


def contract(lst):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(lst, list) or not all(type(e) is int for e in lst):
        return "lst must be a list of int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.int_list(rng, size)]
