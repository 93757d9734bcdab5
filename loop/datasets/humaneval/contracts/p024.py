"""HumanEval/24 largest_divisor: n is an int >= 2 (1 has no smaller divisor; 0 and negatives are a matter of taste)."""

from loop.oracles import gen

CANONICAL = """\
    # largest_divisor(10000000019): "find the largest number that divides n evenly, smaller than n"; the
    # canonical tries every number below n, about 10**10 steps for a prime; the answer is n divided by its
    # smallest prime factor (1 for a prime).
    i = 2
    while i * i <= n:
        if n % i == 0:
            return n // i
        i += 1
    return 1
"""
FIXES = [((10 ** 10 + 19,), 1), ((2 * (10 ** 10 + 19),), 10 ** 10 + 19)]

_PRIMES = (2, 3, 5, 7, 11, 13, 97, 101, 1009, 1013, 7919, 65537, 999983, 2 ** 31 - 1, 10 ** 9 + 7,
           9999999967)


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 2:
        return "n must be at least 2"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        n = rng.randint(2, 120)
    elif r < 0.55:
        n = rng.choice(_PRIMES[: 4 + size // 4])
    elif r < 0.7:
        n = rng.choice(_PRIMES[: 4 + size // 4]) * rng.choice(_PRIMES[: 4 + size // 4])
    elif r < 0.8:
        n = rng.choice((2, 3, 5, 7)) ** rng.randint(1, max(1, 2 * size))
    else:
        n = gen.integer(rng, min(size, 16), 2)  # up to about 2**32: the smallest factor is found fast
        if n > 10 ** 6 and n % 2 and n % 3:
            n *= rng.choice((2, 3))
    return [n]
