"""HumanEval/123 get_odd_collatz: n is a positive int (no upper bound)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.15:
        return [rng.randint(1, 3)]
    if r < 0.25:
        return [rng.choice((27, 97, 871, 6171, 77031, 837799, 2 ** 53 + 1, 2 ** 60 + 1, 3 ** 40))]
    if r < 0.35:
        return [2 ** rng.randint(0, 2 * size + 3)]
    return [gen.integer(rng, size, 1)]


CANONICAL = """\
    # get_odd_collatz(2**60 + 1): "the next term is one half of the previous term"; the canonical's
    # float division n/2 loses precision past 2**53 and returns odd numbers not in the sequence.
    odd = {1}
    while n > 1:
        if n % 2 == 1:
            odd.add(n)
            n = 3 * n + 1
        else:
            n //= 2
    return sorted(odd)
"""


def _odd_collatz(n):
    odd = {1}
    while n > 1:
        if n % 2:
            odd.add(n)
            n = 3 * n + 1
        else:
            n //= 2
    return sorted(odd)


FIXES = [((2 ** 60 + 1,), _odd_collatz(2 ** 60 + 1)), ((3 ** 40,), _odd_collatz(3 ** 40))]
