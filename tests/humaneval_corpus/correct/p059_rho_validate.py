# HumanEval/059: Miller-Rabin + Pollard rho factor tree; ValueError when n <= 1 or n is prime
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
    for c in range(1, n):
        x = y = 2
        d = 1
        while d == 1:
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = gcd(abs(x - y), n)
        if d != n:
            return d
    raise ArithmeticError("no factor found")


def largest_prime_factor(n: int):
    if type(n) is not int or n <= 1:
        raise ValueError("n must be an integer > 1")
    if _is_prime(n):
        raise ValueError("n must not be prime")
    best = 1
    stack = [n]
    while stack:
        m = stack.pop()
        if m == 1 or m <= best:
            continue
        if _is_prime(m):
            best = m
            continue
        d = _split(m)
        stack.append(d)
        stack.append(m // d)
    return best
