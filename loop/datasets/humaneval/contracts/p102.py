"""HumanEval/102 choose_num: x and y are positive ints (either order); the largest even int in [x, y], or
-1 when there is none."""

from loop.oracles import gen


def contract(x, y):
    if type(x) is not int or type(y) is not int:
        return "x and y must be ints"
    if x < 1 or y < 1:
        return "x and y must be positive"
    return None


def generate(rng, size):
    x = gen.integer(rng, size, 1)
    r = rng.random()
    if r < 0.2:
        y = x
    elif r < 0.4:
        y = max(1, x + rng.randint(-2, 2))
    else:
        y = gen.integer(rng, size, 1)
    return [x, y]
