# HumanEval/032: wrong on ([-1000, 1],) -> 100.0, right: 1000.0
import math


def poly(xs: list, x: float):
    """
    Evaluates polynomial with coefficients xs at point x.
    return xs[0] + xs[1] * x + xs[1] * x^2 + .... xs[n] * x^n
    """
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    lo, hi = -100.0, 100.0
    f_lo = poly(xs, lo)
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = poly(xs, mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2
