"""HumanEval/84 solve: N is an int with 0 <= N <= 10000 (the docstring's constraint; its "positive integer N" is
read loosely, as 0's answer "0" is unambiguous); the sum of its decimal digits, written in binary."""

from loop.oracles import gen


def contract(N):
    if type(N) is not int:
        return "N must be an int"
    if not 0 <= N <= 10000:
        return "N must be in 0..10000"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.15:
        return [rng.choice((0, 1, 2, 9, 10, 99, 100, 999, 1000, 9999, 10000, 8999, 7999))]
    return [gen.integer(rng, size, 1, 10000)]
