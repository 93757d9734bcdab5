"""HumanEval/13 greatest_common_divisor: a and b are ints, not both zero (negative allowed: the greatest common divisor is positive)."""

from loop.oracles import gen

CANONICAL = """\
    # greatest_common_divisor(4, -6): "Return a greatest common divisor of two integers a and b"; the
    # greatest common divisor of 4 and -6 is 2, the canonical Euclid loop returns -2 (it keeps the sign of
    # Python's % on a negative b), and -5 for (-5, 0).
    import math
    return math.gcd(a, b)
"""
FIXES = [((4, -6), 2), ((-5, 0), 5), ((-12, -18), 6)]


def contract(a, b):
    if type(a) is not int or type(b) is not int:
        return "a and b must be ints"
    if a == 0 and b == 0:
        return "gcd(0, 0) is undefined"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.3:
        g = rng.randint(1, 50)
        a, b = g * rng.randint(-30, 30), g * rng.randint(-30, 30)
    elif r < 0.45:
        g = gen.integer(rng, size, 1)
        a, b = g * gen.integer(rng, size), g * gen.integer(rng, size)
    elif r < 0.55:
        a, b = rng.choice(((1009, 1013), (2 ** 31 - 1, 2 ** 31), (2 ** 40, 2 ** 20 * 3), (144, 60),
                           (0, 7), (7, 0), (1, 1), (-1, 1)))
    else:
        a, b = gen.integer(rng, size), gen.integer(rng, size)
    if rng.random() < 0.2:
        a, b = (-a, b) if rng.random() < 0.5 else (a, -b)
    if a == 0 and b == 0:
        b = rng.choice((1, -3, 12))
    return [a, b]
