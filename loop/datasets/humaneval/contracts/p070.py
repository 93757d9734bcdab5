"""HumanEval/70 strange_sort_list: lst is a list of int (may be empty, duplicates allowed)."""

from loop.oracles import gen

# The canonical solution empties the caller's list (lst.remove) and the docstring says nothing either way: a solution
# may change its argument (no arguments_agree check).
MUTATION_ALLOWED = True


def contract(lst):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(lst, list) or not all(type(e) is int for e in lst):
        return "lst must be a list of int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.int_list(rng, size)]
