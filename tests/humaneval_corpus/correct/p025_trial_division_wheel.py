# HumanEval/025: 2-3-5 wheel trial division, then Miller-Rabin + Pollard rho for large cofactors; ValueError on n < 1
from math import gcd
from typing import List

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


def _rho(n):
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


def factorize(n: int) -> List[int]:
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    factors = []
    for p in (2, 3, 5):
        while n % p == 0:
            factors.append(p)
            n //= p
    # wheel modulo 30 for small primes
    inc = (4, 2, 4, 2, 4, 6, 2, 6)
    p, i = 7, 0
    while p < 2000 and p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += inc[i]
        i = (i + 1) % 8
    pending = [n] if n > 1 else []
    while pending:
        m = pending.pop()
        if _is_prime(m):
            factors.append(m)
        else:
            d = _rho(m)
            pending.extend((d, m // d))
    factors.sort()
    return factors

