# HumanEval/032: bisection inside the Cauchy root bound; ValueError on odd coefficient count or zero leading coefficient
import math


def poly(xs: list, x: float):
    """
    Evaluates polynomial with coefficients xs at point x.
    return xs[0] + xs[1] * x + xs[1] * x^2 + .... xs[n] * x^n
    """
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    if len(xs) == 0 or len(xs) % 2 != 0:
        raise ValueError("xs must have an even, non-zero number of coefficients")
    if xs[-1] == 0:
        raise ValueError("the largest (leading) coefficient must be non-zero")
    lead = xs[-1]
    bound = 1.0 + max(abs(c / lead) for c in xs[:-1]) if len(xs) > 1 else 1.0

    def horner(x):
        acc = 0.0
        for c in reversed(xs):
            acc = acc * x + c
        return acc

    lo, hi = -bound, bound
    flo = horner(lo)
    if flo == 0:
        return lo
    if horner(hi) == 0:
        return hi
    # odd degree: the signs at -bound and +bound differ
    while True:
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break
        fm = horner(mid)
        if fm == 0:
            return mid
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return lo if abs(poly(xs, lo)) <= abs(poly(xs, hi)) else hi
