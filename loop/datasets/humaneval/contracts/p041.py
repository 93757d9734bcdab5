"""HumanEval/41 car_race_collision: n is a non-negative int (the number of cars in each direction)."""

from loop.oracles import gen


def contract(n):
    """None when the docstring allows these arguments, else a short reason."""
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must be a count (n >= 0)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.integer(rng, size, lo=0)]
