"""HumanEval/22 filter_integers: values is a list (may be empty) of Python values: ints, floats, str, None, lists, dicts, tuples, sets; no bools (whether True is an integer is a matter of taste)."""

# A whole-number float (5.0) is admitted: the answer is a List[int], as the signature says, so 5.0 is left out.

from loop.oracles import gen

_TYPES = (int, float, str, type(None), list, dict, tuple, set)


def contract(values):
    if not isinstance(values, list):
        return "values must be a list"
    for v in values:
        if type(v) is bool:
            return "bools are not allowed"
        if type(v) not in _TYPES:
            return "unsupported value type"
    return None


def _value(rng, size):
    r = rng.random()
    if r < 0.4:
        return gen.integer(rng, size)
    if r < 0.45:
        return round(rng.uniform(-100, 100), 2)
    if r < 0.5:  # a whole number, as a float
        return float(gen.integer(rng, size))
    if r < 0.6:
        return gen.text(rng, 1, gen.LETTERS + gen.DIGITS)
    if r < 0.65:
        return None
    if r < 0.75:
        return rng.choice(([], [1, 2], ["a"], [True]))
    if r < 0.85:
        return rng.choice(({}, {"a": 1}, {1: 2}))
    if r < 0.9:
        return rng.choice(((), (1,), (1, "b")))
    if r < 0.95:
        return rng.choice((set(), {3}, {"x", "y"}))
    return rng.choice((str(rng.randint(0, 99)), "3", "-1"))


def generate(rng, size):
    return [[_value(rng, size) for _ in range(gen.length(rng, size))]]
