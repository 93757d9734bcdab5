"""HumanEval/53 add: x and y are ints."""

from loop.oracles import gen


def contract(x, y):
    """None when the docstring allows these arguments, else a short reason."""
    if type(x) is not int or type(y) is not int:
        return "x and y must be int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.integer(rng, size), gen.integer(rng, size)]
