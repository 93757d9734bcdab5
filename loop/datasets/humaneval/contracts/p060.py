"""HumanEval/60 sum_to_n: n is a positive int."""

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
        return [rng.randint(1, 30)]
    if r < 0.8:
        return [gen.integer(rng, min(size, 9), lo=1, hi=10 ** 6)]
    if r < 0.9:
        return [gen.integer(rng, size, lo=1)]  # up to ~2**80: the sum is past 2**53, where floats round
    return [rng.choice((1, 2, 65535, 65536, 100000, 2 ** 19, 10 ** 6, 2 ** 27 + 1, 2 ** 31, 2 ** 53))]


# sum_to_n(134217729): "sums numbers from 1 to n" is 9007199456067585; the canonical sum(range(n + 1))
# gets it right but takes about a second there, and years at 2**53 (the closed form is exact).
CANONICAL = """\
    return n * (n + 1) // 2
"""
FIXES = [((134217729,), 9007199456067585)]
