from math import isqrt


def is_not_prime(n):
    if n < 2:
        return True
    return any(n % d == 0 for d in range(2, isqrt(n) + 1))
