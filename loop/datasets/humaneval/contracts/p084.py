"""HumanEval/84 solve: N is an int with 1 <= N <= 10000 ("a positive integer N", "0 <= N <= 10000": the
positive reading, so 0 is left out); the sum of its decimal digits, written in binary."""

from loop.oracles import gen


def contract(N):
    if type(N) is not int:
        return "N must be an int"
    if not 1 <= N <= 10000:
        return "N must be in 1..10000"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.15:
        return [rng.choice((1, 2, 9, 10, 99, 100, 999, 1000, 9999, 10000, 8999, 7999))]
    return [gen.integer(rng, size, 1, 10000)]
