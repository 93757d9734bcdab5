"""HumanEval/15 string_sequence: n is an int >= 0 (the sequence 0..n is empty for negative n: taste)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 0:
        return "n must not be negative"
    return None


def generate(rng, size):
    if rng.random() < 0.6:
        return [rng.randint(0, 12)]
    return [gen.integer(rng, size, 0, 20000)]
