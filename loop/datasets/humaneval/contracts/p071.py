"""HumanEval/71 triangle_area: a, b, c are positive ints (the tests use ints); a valid triangle has every
side <= 300, so that the area rounded to 2 decimals is the same whichever float formula computes it."""

from loop.oracles import gen

LIMIT = 300


def contract(a, b, c):
    """None when the docstring allows these arguments, else a short reason."""
    if not all(type(v) is int for v in (a, b, c)):
        return "sides must be int"
    if min(a, b, c) < 1:
        return "sides must be positive"
    valid = a + b > c and a + c > b and b + c > a
    if valid and max(a, b, c) > LIMIT:
        return "a valid triangle's sides must be <= 300 (float rounding of the area)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    hi = min(LIMIT, 5 + 10 * size)
    if r < 0.55:
        a, b = rng.randint(1, hi), rng.randint(1, hi)
        c = gen.pick(rng, lambda: rng.randint(abs(a - b) + 1, min(hi, a + b - 1)) if abs(a - b) + 1 <= min(hi, a + b - 1) else 1,
                     lambda: a + b - 1 if a + b - 1 <= hi else abs(a - b) + 1,
                     lambda: abs(a - b) + 1)
        sides = [a, b, c]
    elif r < 0.8:
        a, b = rng.randint(1, hi), rng.randint(1, hi)
        sides = [a, b, a + b + gen.pick(rng, 0, lambda: rng.randint(0, 5), lambda: gen.integer(rng, size, lo=0))]
    else:
        sides = [gen.integer(rng, size, lo=1) for _ in range(3)]
        if sides[0] + sides[1] > sides[2] and sides[0] + sides[2] > sides[1] and sides[1] + sides[2] > sides[0] \
                and max(sides) > LIMIT:
            sides[rng.randrange(3)] = sum(sides)  # make it invalid
    rng.shuffle(sides)
    return sides
