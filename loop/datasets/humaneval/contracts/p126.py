"""HumanEval/126 is_sorted: lst is a list of non-negative ints (may be empty)."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or not all(type(x) is int for x in lst):
        return "lst must be a list of int"
    if any(x < 0 for x in lst):
        return "no negative numbers"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    r = rng.random()
    if r < 0.5:  # sorted, each value up to two or three times
        vals = sorted(gen.int_list(rng, size, 0, None, n, n))
        out = []
        for v in vals:
            k = rng.choice((1, 1, 1, 2, 2, 3)) if rng.random() < 0.5 else 1
            out.extend([v] * k)
        if out and rng.random() < 0.3:  # perturb: one swap
            i, j = rng.randrange(len(out)), rng.randrange(len(out))
            out[i], out[j] = out[j], out[i]
        return [out]
    return [gen.int_list(rng, size, 0, rng.choice((None, 5, 20)), 0, n)]
