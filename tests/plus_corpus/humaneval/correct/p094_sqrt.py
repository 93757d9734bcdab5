from math import isqrt


def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        return all(n % d for d in range(2, isqrt(n) + 1))

    primes = [x for x in lst if is_prime(x)]
    if not primes:
        return 0
    return sum(int(d) for d in str(max(primes)))
