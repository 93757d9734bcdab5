"""HumanEval/104 unique_digits: x is a list of positive ints (may be empty, duplicates allowed); the
elements with no even decimal digit, ascending (duplicates kept)."""

from loop.oracles import gen


def contract(x):
    if not isinstance(x, list) or not all(type(v) is int for v in x):
        return "x must be a list of int"
    if any(v < 1 for v in x):
        return "the integers must be positive"
    return None


def _odd_digits(rng, size):
    return int("".join(rng.choice("13579") for _ in range(rng.randint(1, max(1, min(size, 25))))))


def generate(rng, size):
    x = gen.int_list(rng, size, 1)
    for _ in range(rng.randint(0, len(x) // 2 + 1)):
        x.insert(rng.randint(0, len(x)), _odd_digits(rng, size))
    if x and rng.random() < 0.2:
        x.append(rng.choice(x))
    return [x]
