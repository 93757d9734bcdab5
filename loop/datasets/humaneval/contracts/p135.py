"""HumanEval/135 can_arrange: arr is a list of distinct ints (may be empty)."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(x) is int for x in arr):
        return "arr must be a list of int"
    if len(set(arr)) != len(arr):
        return "no duplicate values"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.3:
        out = sorted(gen.int_list(rng, size, unique=True))
        for _ in range(rng.randint(0, 2)):
            if len(out) > 1:
                i = rng.randrange(len(out) - 1)
                out[i], out[i + 1] = out[i + 1], out[i]
        return [out]
    if r < 0.45:
        n = gen.length(rng, size)
        out = list(range(n))
        rng.shuffle(out)
        return [out]
    return [gen.int_list(rng, size, unique=True)]
