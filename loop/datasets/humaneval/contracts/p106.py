"""HumanEval/106 f: n is a non-negative int (kept to <= 300: the answer holds factorials up to n!); the
list of size n whose element for i = 1..n is i! when i is even and 1 + 2 + ... + i when i is odd."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must be non-negative"
    return None


def generate(rng, size):
    if rng.random() < 0.4:
        return [rng.randint(0, 10)]
    return [gen.integer(rng, size, 0, min(300, 8 * size))]
