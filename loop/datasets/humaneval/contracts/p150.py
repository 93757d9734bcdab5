"""HumanEval/150 x_or_y: n, x and y are ints (n of any sign: 0, 1 and negatives are not prime)."""

from loop.oracles import gen


def contract(n, x, y):
    if type(n) is not int or type(x) is not int or type(y) is not int:
        return "n, x and y must be int"
    return None


_PRIMES = (2, 3, 5, 7, 11, 13, 97, 7919, 65521, 99991, 999983, 1000003)


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        n = rng.randint(0, 30)
    elif r < 0.55:
        n = rng.choice(_PRIMES)
    elif r < 0.7:
        n = rng.choice((1009 * 1013, 999983 * 2, 7919 * 7919, 4, 9, 25, 49, 121, 3 * 5 * 7 * 11 * 13))
    elif r < 0.85:
        n = rng.randint(0, 10 ** 6)
    else:  # large, with a small factor
        n = rng.randint(2, 97) * gen.integer(rng, size, 1)
    if rng.random() < 0.1:
        n = -n  # -7 is not prime
    return [n, gen.integer(rng, size), gen.integer(rng, size)]


CANONICAL = """\
    # x_or_y(0, 1, 2): "return the value of x if n is a prime number and ... y otherwise"; 0 is not prime
    # but the canonical's empty loop returns x. (Trial division up to the square root: also fast.)
    if n < 2:
        return y
    i = 2
    while i * i <= n:
        if n % i == 0:
            return y
        i += 1
    return x
"""
FIXES = [((0, 1, 2), 2), ((0, 34, 12), 12)]
