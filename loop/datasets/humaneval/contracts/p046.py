"""HumanEval/46 fib4: n is a non-negative int."""

from loop.oracles import gen


def contract(n):
    """None when the docstring allows these arguments, else a short reason."""
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must be non-negative"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.5:
        return [rng.randint(0, 12)]
    if r < 0.9:
        return [rng.randint(0, 25 * size)]
    return [rng.randint(0, 3000)]
