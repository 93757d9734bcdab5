"""HumanEval/79 decimal_to_binary: decimal is a non-negative int (0 gives "db0db" in the tests)."""

from loop.oracles import gen


def contract(decimal):
    """None when the docstring allows these arguments, else a short reason."""
    if type(decimal) is not int:
        return "decimal must be an int"
    if decimal < 0:
        return "decimal must be non-negative"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.integer(rng, size, lo=0)]
