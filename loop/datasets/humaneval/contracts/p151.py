"""HumanEval/151 double_the_difference: lst is a list of int and non-integral finite float (may be empty)."""

# lst is a list of int and non-integral finite floats (a float with an integral value, like 3.0, is left out: is
# it an integer?); may be empty.

import math

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list):
        return "lst must be a list"
    for x in lst:
        if type(x) is int:
            continue
        if type(x) is not float or not math.isfinite(x):
            return "numbers must be int or finite float"
        if x.is_integer():
            return "a float with an integral value is ambiguous"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    out = []
    for _ in range(n):
        r = rng.random()
        if out and r < 0.1:
            out.append(out[rng.randrange(len(out))])
        elif r < 0.55:
            out.append(gen.integer(rng, size) if rng.random() < 0.5 else rng.randint(-15, 15))
        else:
            v = rng.choice((gen.real(rng, size), rng.choice((0.5, -1.5, 2.5, 3.3, 1e-5, 3e-7, 0.1, 1.0000001))))
            out.append(v if not v.is_integer() else v + 0.5)
    out = [v for v in out if type(v) is int or not v.is_integer()]
    return [out]


CANONICAL = """\
    # double_the_difference([1e-05]): "Ignore numbers that are negative or not integers"; 1e-05 is no
    # integer, but the canonical's `"." not in str(i)` test misses it ('1e-05' has no '.').
    return sum(i ** 2 for i in lst if type(i) is int and i > 0 and i % 2 == 1)
"""
FIXES = [(([1e-05],), 0), (([3, 3e-07],), 9)]
