"""The statistics reports quote: pass@k, Wilson intervals for a rate, Newcombe intervals for a difference."""

from __future__ import annotations

from math import comb, sqrt

Z = 1.959964  # 95%


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Chen et al. 2021's unbiased estimator 1 - C(n-c, k) / C(n, k); None when n < k."""
    if n < k or n == 0:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def wilson(passed: int, n: int) -> tuple[float, float] | None:
    """Wilson score interval of passed/n at 95%, clamped to [0, 1]; None when n == 0."""
    if n == 0:
        return None
    p = passed / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(x1: int, n1: int, x2: int, n2: int) -> tuple[float, float, float] | None:
    """p1 - p2 with Newcombe's hybrid score interval (method 10, no continuity correction), as fractions:
    8/10 vs 3/10 gives (0.5, 0.0665, 0.7398). None when either side has nothing decided."""
    if n1 == 0 or n2 == 0:
        return None
    p1, p2 = x1 / n1, x2 / n2
    (l1, u1), (l2, u2) = wilson(x1, n1), wilson(x2, n2)
    d = p1 - p2
    return d, d - sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
