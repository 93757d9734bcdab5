"""HumanEval/77 iscube: a is an int (any sign, any magnitude: "you may assume the input is always valid")."""

from loop.oracles import gen


def contract(a):
    """None when the docstring allows these arguments, else a short reason."""
    if type(a) is not int:
        return "a must be an int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.5:
        root = gen.integer(rng, max(1, size // 2))
        a = root ** 3 + gen.pick(rng, 0, 0, 1, -1)
    else:
        a = gen.integer(rng, size)
    return [a]


CANONICAL = """\
    # iscube((10**15 + 1)**3): "returns True if this ingeger is a cube of some integer number"; the
    # canonical's float cube root is off by more than 0.5 there (and overflows past 10**308).
    n = abs(a)
    r = round(n ** (1. / 3)) if n < 2 ** 60 else 1 << -(-n.bit_length() // 3)
    while r ** 3 > n:
        r = (2 * r + n // (r * r)) // 3
    while (r + 1) ** 3 <= n:
        r += 1
    return r ** 3 == n
"""
FIXES = [(((10 ** 15 + 1) ** 3,), True), ((-(10 ** 16 + 7) ** 3,), True), ((10 ** 402,), True)]
