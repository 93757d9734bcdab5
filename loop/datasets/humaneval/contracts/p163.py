"""HumanEval/163 generate_integers: a and b are positive ints (either order)."""

# a and b are positive ints (either order); the answer is the even digits (2, 4, 6, 8) between them, inclusive.

from loop.oracles import gen


def contract(a, b):
    if type(a) is not int or type(b) is not int:
        return "a and b must be int"
    if a < 1 or b < 1:
        return "a and b must be positive"
    return None


def _v(rng, size):
    r = rng.random()
    if r < 0.6:
        return rng.randint(1, 12)
    if r < 0.75:
        return rng.randint(1, 100)
    return gen.integer(rng, size, 1)


def generate(rng, size):
    return [_v(rng, size), _v(rng, size)]
