"""HumanEval/63 fibfib: n is a non-negative int."""


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
        return [rng.randint(0, 15)]
    if r < 0.9:
        return [rng.randint(0, 25 * size)]
    return [rng.randint(0, 3000)]


CANONICAL = """\
    # fibfib(40): "Please write a function to efficiently compute the n-th element"; the canonical's
    # triple recursion takes exponential time.
    a, b, c = 0, 0, 1
    for _ in range(n):
        a, b, c = b, c, a + b + c
    return a
"""
FIXES = [((40,), 7046319384)]
