"""HumanEval/157 right_angle_triangle: a, b and c are positive ints (need not form a triangle)."""

from loop.oracles import gen

_TRIPLES = ((3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (48, 55, 73), (65, 72, 97))


def contract(a, b, c):
    for v in (a, b, c):
        if type(v) is not int:
            return "the sides must be int"
        if v < 1:
            return "the sides must be positive"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        t = list(rng.choice(_TRIPLES))
        k = gen.integer(rng, size, 1) if rng.random() < 0.3 else rng.randint(1, 5)
        t = [v * k for v in t]
        if rng.random() < 0.2:
            i = rng.randrange(3)
            t[i] += rng.choice((-1, 1)) if t[i] > 1 else 1
        rng.shuffle(t)
        return t
    if r < 0.7:
        return [rng.randint(1, 12) for _ in range(3)]
    return [gen.integer(rng, size, 1) for _ in range(3)]
