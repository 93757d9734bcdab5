"""HumanEval/59 largest_prime_factor: n is an int, n > 1 and not prime ("Assume n > 1 and is not a prime")."""

from loop.oracles import gen

_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def _is_prime(n):
    """Miller-Rabin, deterministic below 3.3 * 10**24."""
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
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def contract(n):
    """None when the docstring allows these arguments, else a short reason."""
    if type(n) is not int:
        return "n must be an int"
    if n <= 1:
        return "n must be > 1"
    if _is_prime(n):
        return "n must not be prime"
    return None


def _prime(rng, hi):
    while True:
        v = rng.randint(2, hi)
        if _is_prime(v):
            return v


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.4:
        small = [2, 3, 5, 7, 11, 13]
        n = 1
        for _ in range(rng.randint(2, 2 + size // 4)):
            n *= rng.choice(small)
    elif r < 0.55:
        n = rng.choice((4, 6, 8, 9, 2 ** rng.randint(2, 2 + 2 * size), 1009 * 1013, 3 ** rng.randint(2, 30)))
    else:
        # small prime factors times one big prime (up to ~10**7 at the top sizes): the reference is fast
        n = 1
        for _ in range(rng.randint(1, 3)):
            n *= _prime(rng, 2000)
        n *= _prime(rng, 2 ** min(24, 4 + size))
    return [n]


CANONICAL = """\
    # largest_prime_factor(10**10): "Return the largest prime factor of n"; the canonical tries every
    # j up to n, which does not finish on large n.
    largest, d = 1, 2
    while d * d <= n:
        while n % d == 0:
            largest, n = d, n // d
        d += 1
    return max(largest, n) if n > 1 else largest
"""
FIXES = [((10 ** 10,), 5)]
