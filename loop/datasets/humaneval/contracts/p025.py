"""HumanEval/25 factorize: n is an int >= 2 (the factorization of 1, 0 or a negative number is a matter of taste)."""


_SMALL = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 97)
_BIG = (101, 997, 1009, 1013, 7919, 65537, 104729, 999983, 2 ** 31 - 1, 10 ** 9 + 7)


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 2:
        return "n must be at least 2"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.3:
        return [rng.randint(2, 200)]
    if r < 0.4:
        return [rng.choice((2, 3, 5, 7)) ** rng.randint(1, max(1, 2 * size))]
    n = 1
    for _ in range(rng.randint(0, max(1, size // 3))):
        n *= rng.choice(_SMALL)
    big = _BIG[: 2 + size // 4]
    k = rng.randint(0, 2)
    if k == 2:
        n *= rng.choice(big[:6]) * rng.choice(big[:6])
    elif k == 1:
        n *= rng.choice(big)
    if rng.random() < 0.2:
        n *= rng.choice(big[:4]) ** 2
    return [max(n, 2)]
