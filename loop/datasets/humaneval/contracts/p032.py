"""HumanEval/32 find_zero: xs is a list of int coefficients (|c| <= 10**4, so zeros stay within the reach of a float bisection), of even length 2..8, whose last (highest-degree) coefficient is non-zero; any real zero is an answer."""

import math


def contract(xs):
    if not isinstance(xs, list) or not all(type(c) is int for c in xs):
        return "xs must be a list of int"
    if len(xs) % 2 or not 2 <= len(xs) <= 8:
        return "xs must have an even number (2..8) of coefficients"
    if xs[-1] == 0:
        return "the highest-degree coefficient must not be zero"
    if any(abs(c) > 10 ** 4 for c in xs):
        return "coefficients must lie in -10**4..10**4"
    return None


def _poly(xs, x):
    return sum(c * math.pow(x, i) for i, c in enumerate(xs))


def equivalent(args, got, want):
    """Any real zero: |poly(got)| < 1e-4 (the problem's own test) or a sign change of poly within
    1e-6 (relative for large x) of got."""
    try:
        xs = args[0]
        if type(got) not in (int, float):
            return False
        x = float(got)
        if not math.isfinite(x):
            return False
        if abs(_poly(xs, x)) < 1e-4:
            return True
        d = 1e-6 * max(1.0, abs(x))
        lo, hi = _poly(xs, x - d), _poly(xs, x + d)
        return lo == 0 or hi == 0 or (lo < 0) != (hi < 0)
    except Exception:
        return False


def generate(rng, size):
    n = 2 * rng.randint(1, 4)
    r = rng.random()
    if r < 0.4:
        xs = [rng.randint(-10, 10) for _ in range(n)]
    elif r < 0.6:
        xs = [c if c else 1 for c in (rng.randint(-10, 10) for _ in range(n))]
    elif r < 0.8:
        # a product of linear factors (x - r): several zeros, some repeated
        roots = [rng.randint(-3, 3) for _ in range(n - 1)]
        xs = [1]
        for root in roots:
            xs = [(xs[i - 1] if i else 0) - root * (xs[i] if i < len(xs) else 0) for i in range(len(xs) + 1)]
        if any(abs(c) > 10 for c in xs):
            xs = [rng.randint(-10, 10) for _ in range(n)]
    elif r < 0.9:
        xs = [rng.choice((0, 0, 1, -1, 10, -10)) for _ in range(n)]
    else:  # a zero far from the origin: a large constant over a small leading coefficient
        xs = [rng.choice((1, -1)) * rng.randint(100, 10 ** 4)] + [rng.randint(-3, 3) for _ in range(n - 2)]
        xs.append(rng.choice((1, -1)))
    if xs[-1] == 0:
        xs[-1] = rng.choice((1, -1, 10, -10, 3))
    return [xs]
