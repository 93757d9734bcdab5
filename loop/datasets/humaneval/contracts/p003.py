"""HumanEval/3 below_zero: operations is a list of int (may be empty)."""

from loop.oracles import gen


def contract(operations):
    if not isinstance(operations, list) or not all(type(x) is int for x in operations):
        return "operations must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        n = gen.length(rng, size)
        ops = [rng.randint(-5, 6) for _ in range(n)]
    elif r < 0.7:
        # a walk that comes back to exactly zero (no dip) and maybe dips at the end
        ops = []
        for _ in range(gen.length(rng, size)):
            k = rng.randint(1, 10)
            ops += [k, -k]
        if ops and rng.random() < 0.5:
            ops.append(-1)
    else:
        ops = gen.int_list(rng, size)
    return [ops]
