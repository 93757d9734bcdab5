"""HumanEval/97 multiply: a and b are ints (any sign, any size); the product of their unit digits, the unit
digit of a negative number being that of its absolute value."""

from loop.oracles import gen


def contract(a, b):
    if type(a) is not int or type(b) is not int:
        return "a and b must be ints"
    return None


def generate(rng, size):
    return [gen.integer(rng, size), gen.integer(rng, size)]


CANONICAL = """\
    # multiply(1, -1): "returns the product of their unit digits"; the unit digit of -1 is 1, the
    # canonical abs(b % 10) gives 9.
    return (abs(a) % 10) * (abs(b) % 10)
"""
FIXES = [((1, -1), 1), ((-13, 7), 21), ((-2, -3), 6)]
