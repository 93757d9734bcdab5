# HumanEval/024: n divided by its smallest prime factor, found with Miller-Rabin + Pollard rho (fast to 10**12 and beyond)
from math import gcd

_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def _is_prime(n):
    if n < 2:
        return False
    for p in _BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _BASES:
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _split(n):
    if n % 2 == 0:
        return 2
    c = 1
    while True:
        x = y = 2
        d = 1
        while d == 1:
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = gcd(abs(x - y), n)
        if d != n:
            return d
        c += 1


def _smallest_prime_factor(n):
    for p in range(2, 1000):
        if n % p == 0:
            return p
    stack, best = [n], None
    while stack:
        m = stack.pop()
        if best is not None and m >= best:
            continue
        if _is_prime(m):
            best = m
            continue
        d = _split(m)
        stack.extend((d, m // d))
    return best


def largest_divisor(n: int) -> int:
    if type(n) is not int or n < 2:
        raise ValueError("n must be an integer >= 2 (1 has no divisor smaller than itself)")
    if _is_prime(n):
        return 1
    return n // _smallest_prime_factor(n)
