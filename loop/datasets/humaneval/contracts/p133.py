"""HumanEval/133 sum_squares: lst is a list of int or finite float (not bool; may be empty)."""

import math

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list):
        return "lst must be a list"
    for x in lst:
        if type(x) is not int and type(x) is not float:
            return "numbers must be int or float"
        if type(x) is float and not math.isfinite(x):
            return "numbers must be finite"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    out = []
    for _ in range(n):
        r = rng.random()
        if out and r < 0.1:
            out.append(out[rng.randrange(len(out))])
        elif r < 0.45:
            out.append(gen.integer(rng, size))
        elif r < 0.55:
            out.append(rng.choice((-1.5, -0.5, 0.5, -0.0, 0.0, 2.0, -2.0, 1e-9, -1e-9, 0.999999)))
        else:
            out.append(gen.real(rng, size))
    return [out]
