"""HumanEval/9 rolling_max: numbers is a list of int (may be empty)."""

from loop.oracles import gen


def contract(numbers):
    if not isinstance(numbers, list) or not all(type(x) is int for x in numbers):
        return "numbers must be a list of int"
    return None


def generate(rng, size):
    if rng.random() < 0.4:
        return [[rng.randint(-10, 10) for _ in range(gen.length(rng, size))]]
    return [gen.int_list(rng, size)]
