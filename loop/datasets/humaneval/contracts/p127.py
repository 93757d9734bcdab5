"""HumanEval/127 intersection: two tuples (start, end) of int with start <= end."""

# two tuples (start, end) of ints with start <= end; the intersection's length is end - start of the overlap
# (the canonical's prime test is a linear scan: lengths kept small).

from loop.oracles import gen


def _interval(x):
    return isinstance(x, tuple) and len(x) == 2 and all(type(v) is int for v in x) and x[0] <= x[1]


def contract(interval1, interval2):
    if not _interval(interval1) or not _interval(interval2):
        return "each interval must be a tuple (start, end) of int with start <= end"
    return None


def _span(rng, size):
    r = rng.random()
    if r < 0.6:
        return rng.randint(0, 12)
    if r < 0.9:
        return rng.randint(0, min(2 ** (size + 4), 3000))
    return rng.choice((7919, 7917, 9973, 10007, 1009 * 13, 65521, 65536))


def generate(rng, size):
    base = gen.integer(rng, size) if rng.random() < 0.3 else rng.randint(-10, 10)
    a0 = base + rng.randint(-15, 15)
    a1 = a0 + _span(rng, size)
    r = rng.random()
    if r < 0.6:  # overlapping: start the second inside or around the first
        b0 = rng.randint(a0 - 20, a1 + 3)
    elif r < 0.8:
        b0 = a0
    else:
        b0 = a1 + rng.randint(-1, 30)
    b1 = b0 + _span(rng, size)
    i1, i2 = (a0, a1), (b0, b1)
    if rng.random() < 0.5:
        i1, i2 = i2, i1
    return [i1, i2]
