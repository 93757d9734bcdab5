"""HumanEval/75 is_multiply_prime: a is an int, a <= 1001 (the docstring says a < 100; the tests go up to
1001 = 7 * 11 * 13; 0 and negatives are no product of primes: False). "multiplication of 3 prime numbers"
counts repeats (8 = 2 * 2 * 2 is True)."""


def contract(a):
    """None when the docstring allows these arguments, else a short reason."""
    if type(a) is not int:
        return "a must be an int"
    if a > 1001:
        return "a must be at most 1001 (less than 100, widened by the tests)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.05:
        return [rng.choice((0, -1, -8, -30, -105, -rng.randint(1, 1001)))]  # no product of primes
    if r < 0.5:
        return [rng.randint(1, 99)]
    if r < 0.75:
        primes = [p for p in range(2, 500) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
        while True:
            v = rng.choice(primes) * rng.choice(primes[:10]) * rng.choice(primes[:10])
            if v <= 1001:
                return [v]
    return [rng.randint(1, 1001)]


CANONICAL = """\
    # is_multiply_prime(404): "returns true if the given number is the multiplication of 3 prime
    # numbers"; 404 = 2 * 2 * 101, but the canonical only tries primes up to 100 (and is slow).
    count, d = 0, 2
    while d * d <= a:
        while a % d == 0:
            a //= d
            count += 1
        d += 1
    if a > 1:
        count += 1
    return count == 3
"""
FIXES = [((404,), True), ((618,), True)]
