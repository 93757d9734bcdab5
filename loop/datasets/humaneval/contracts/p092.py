"""HumanEval/92 any_int: x, y, z are numbers, each an int (not bool) or a finite float; True exactly when all
three are ints (a float such as 3.0 is not) and one equals the sum of the other two."""

import math

from loop.oracles import gen


def _num(v):
    return type(v) is int or (type(v) is float and math.isfinite(v))


def contract(x, y, z):
    if not (_num(x) and _num(y) and _num(z)):
        return "x, y, z must be ints or finite floats"
    return None


def generate(rng, size):
    r = rng.random()
    a, b = gen.integer(rng, size), gen.integer(rng, size)
    if r < 0.5:
        vals = [a, b, a + b]
        rng.shuffle(vals)
    elif r < 0.7:
        vals = [a, b, a + b + rng.choice((-1, 1, 2))]
        rng.shuffle(vals)
    else:
        vals = [a, b, a + b]
        rng.shuffle(vals)
        i = rng.randrange(3)
        k = rng.random()
        if k < 0.4:
            vals[i] = float(vals[i]) if abs(vals[i]) < 2 ** 53 else 0.5
        elif k < 0.7:
            vals[i] = vals[i] + rng.choice((0.5, -0.5, 0.1))
            vals[i] = float(vals[i])
        else:
            vals = [gen.real(rng, size) for _ in range(3)]
    return vals
