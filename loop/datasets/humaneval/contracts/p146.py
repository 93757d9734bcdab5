"""HumanEval/146 specialFilter: nums is a list of int (may be empty)."""

from loop.oracles import gen


def contract(nums):
    if not isinstance(nums, list) or not all(type(x) is int for x in nums):
        return "nums must be a list of int"
    return None


def _odd_ends(rng, size):
    k = rng.randint(0, 2 * size)
    mid = "".join(rng.choice("0123456789") for _ in range(k))
    return int(rng.choice("13579") + mid + rng.choice("13579"))


def generate(rng, size):
    n = gen.length(rng, size)
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            out.append(_odd_ends(rng, size) * rng.choice((1, 1, 1, -1)))
        elif r < 0.5:
            out.append(rng.randint(-20, 120))
        else:
            out.append(gen.integer(rng, size))
    return [out]
