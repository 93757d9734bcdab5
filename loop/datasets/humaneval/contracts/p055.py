"""HumanEval/55 fib: n is a positive int (fib(1) == 1, fib(8) == 21: the usual indexing)."""

from loop.oracles import gen


def contract(n):
    """None when the docstring allows these arguments, else a short reason."""
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.5:
        return [rng.randint(1, 15)]
    if r < 0.9:
        return [rng.randint(1, 25 * size)]
    return [rng.randint(1, 5000)]


CANONICAL = """\
    # fib(45): "Return n-th Fibonacci number"; the canonical's double recursion takes exponential time.
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"""
FIXES = [((45,), 1134903170)]
