"""HumanEval/138 is_equal_to_sum_even: n is an int (any sign)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    return None


def generate(rng, size):
    if rng.random() < 0.5:
        return [rng.randint(-2, 20)]
    return [gen.integer(rng, size)]
