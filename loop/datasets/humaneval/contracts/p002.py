"""HumanEval/2 truncate_number: number is a positive finite float that is not a whole number (for whole numbers the docstring's "largest integer smaller than given number" and "leftover always smaller than 1" disagree)."""

import math


def contract(number):
    if type(number) is not float:
        return "number must be a float"
    if not math.isfinite(number) or number <= 0:
        return "number must be positive and finite"
    if number.is_integer():
        return "number must not be a whole number"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        v = round(rng.uniform(0, 20), rng.randint(1, 4))
    elif r < 0.5:
        v = rng.choice((0.5, 1e-9, 0.999999, 1.000001, 0.1, 2.5, 1e-300, 5e-324))
    elif r < 0.8:
        v = rng.random() * 10 ** rng.randint(0, min(size, 15))
    else:
        v = rng.randint(0, 2 ** min(2 * size, 48)) + rng.choice((0.5, 0.25, 0.125, rng.random()))
    v = abs(float(v))
    if v <= 0 or v.is_integer():
        v = math.floor(v) + 0.5
    return [v]
