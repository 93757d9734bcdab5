"""HumanEval/159 eat: number, need and remaining are ints in [0, 1000]."""


def contract(number, need, remaining):
    for v in (number, need, remaining):
        if type(v) is not int:
            return "arguments must be int"
        if not 0 <= v <= 1000:
            return "0 <= value <= 1000"
    return None


def _v(rng):
    r = rng.random()
    if r < 0.15:
        return rng.choice((0, 1, 999, 1000))
    if r < 0.6:
        return rng.randint(0, 15)
    return rng.randint(0, 1000)


def generate(rng, size):
    number, need, remaining = _v(rng), _v(rng), _v(rng)
    if rng.random() < 0.15:
        remaining = need
    return [number, need, remaining]
