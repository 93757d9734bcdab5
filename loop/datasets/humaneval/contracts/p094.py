"""HumanEval/94 skjkasdkd: lst is a list of int holding at least one prime (negatives, 0 and 1 are not
prime); the digit sum of the largest prime in it."""

from loop.oracles import gen

_SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
                 101, 109, 163, 181, 199, 4597, 5107, 7919, 8191)
_BIG_PRIMES = (2 ** 31 - 1, 10 ** 9 + 7, 10 ** 9 + 9, 999999937, 1000003, 8589934583, 4294967291, 99999989)
_BIG_COMPOSITES = (1009 * 1013, 2 ** 31, 2 ** 32 + 1, 10 ** 9 + 8, 99991 * 99989, 65537 * 65539, 3 * 1000003)


def _is_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    if not any(_is_prime(x) for x in lst):
        return "lst must hold a prime (else there is no largest prime)"
    return None


def generate(rng, size):
    hi = rng.choice((10, 100, 1000, 10 ** 5)) if size > 2 else 20
    lst = gen.int_list(rng, size, -5 if rng.random() < 0.2 else 0, hi)
    for _ in range(rng.choice((1, 1, 2, 3))):
        lst.insert(rng.randint(0, len(lst)), rng.choice(_SMALL_PRIMES))
    if size > 4 and rng.random() < 0.3:
        lst.insert(rng.randint(0, len(lst)), rng.choice(_BIG_PRIMES))
    if size > 4 and rng.random() < 0.3:
        lst.insert(rng.randint(0, len(lst)), rng.choice(_BIG_COMPOSITES))
    return [lst]
