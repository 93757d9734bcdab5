"""HumanEval/5 intersperse: numbers is a list of int (may be empty), delimeter an int."""

from loop.oracles import gen


def contract(numbers, delimeter):
    if not isinstance(numbers, list) or not all(type(x) is int for x in numbers):
        return "numbers must be a list of int"
    if type(delimeter) is not int:
        return "delimeter must be an int"
    return None


def generate(rng, size):
    numbers = gen.int_list(rng, size)
    d = gen.integer(rng, size) if rng.random() < 0.7 else (rng.choice(numbers) if numbers else 0)
    return [numbers, d]
