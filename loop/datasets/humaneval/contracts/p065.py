"""HumanEval/65 circular_shift: x is a non-negative int, shift a non-negative int."""

from loop.oracles import gen


def contract(x, shift):
    """None when the docstring allows these arguments, else a short reason."""
    if type(x) is not int or type(shift) is not int:
        return "x and shift must be int"
    if x < 0:
        return "x must be non-negative (digits of a negative number are a matter of taste)"
    if shift < 0:
        return "shift must be non-negative"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    x = gen.integer(rng, size, lo=0)
    n = len(str(x))
    shift = gen.pick(rng, lambda: rng.randint(0, n + 1), lambda: rng.choice((0, n, n + 1)),
                     lambda: gen.integer(rng, size, lo=0))
    return [x, shift]
