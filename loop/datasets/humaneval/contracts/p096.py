"""HumanEval/96 count_up_to: n is a non-negative int; the primes less than n, ascending (n is kept to
<= 500 here: the canonical is a quadratic trial division)."""

from loop.oracles import gen

_TOP = 500


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must be non-negative"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.2:
        return [rng.choice((0, 1, 2, 3, 4, 5, 11, 12, 13, 97, 100, 101, 499, 500))]
    return [gen.integer(rng, size, 0, min(_TOP, 50 * size))]
