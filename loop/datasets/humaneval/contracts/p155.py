"""HumanEval/155 even_odd_count: num is an int (any sign; 0 has one even digit)."""

from loop.oracles import gen


def contract(num):
    if type(num) is not int:
        return "num must be an int"
    return None


def generate(rng, size):
    if rng.random() < 0.2:
        k = gen.length(rng, size, 1)
        return [int("".join(rng.choice("0123456789") for _ in range(k))) * rng.choice((1, -1))]
    return [gen.integer(rng, size)]
