"""HumanEval/31 is_prime: n is any int (primes are the integers > 1 with no other positive divisor: 0, 1 and negatives are not)."""

from loop.oracles import gen

CANONICAL = """\
    # is_prime(10000000019): "Return true if a given number is prime"; the canonical tries every k below
    # n - 1, about 10**10 steps for a large prime; trial division up to the square root gives the same answer.
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True
"""
FIXES = [((10 ** 10 + 19,), True), ((2 ** 31 - 1,), True)]

_PRIMES = (2, 3, 5, 7, 11, 13, 61, 101, 997, 1009, 1013, 7919, 13441, 65537, 104729, 999983,
           2 ** 31 - 1, 10 ** 9 + 7, 9999999967)
_TRICKY = (0, 1, 4, 9, 25, 49, 121, 561, 1105, 1729, 2047, 1009 * 1013, 65537 * 65537, 999983 * 2,
           2 ** 32, 2 ** 63, 2 ** 31 + 1, 3 * (10 ** 9 + 7))


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.05:
        return [-rng.choice(_PRIMES[: 6 + size // 3] + _TRICKY[: 8 + size // 3])]  # a negative prime is no prime
    if r < 0.4:
        return [rng.randint(0, 120)]
    if r < 0.6:
        return [rng.choice(_PRIMES[: 6 + size // 3])]
    if r < 0.8:
        return [rng.choice(_TRICKY[: 8 + size // 3])]
    n = gen.integer(rng, min(size, 16), 0)  # up to about 2**32
    return [n]
