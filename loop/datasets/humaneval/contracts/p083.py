"""HumanEval/83 starts_one_ends: n is a positive int (n >= 1); the count of n-digit positive integers that
start or end with 1."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        return [rng.randint(1, 6)]
    if r < 0.6:
        return [rng.choice((1, 2, 3))]
    return [gen.integer(rng, size, 1, 50 * size)]
