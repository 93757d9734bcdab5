"""HumanEval/100 make_a_pile: n is a positive int (kept to <= 2000: the answer has n elements); the levels
n, n+2, n+4, ... (n of them)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    if rng.random() < 0.3:
        return [rng.randint(1, 9)]
    return [gen.integer(rng, size, 1, min(2000, 25 * size))]
