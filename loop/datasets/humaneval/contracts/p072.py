"""HumanEval/72 will_it_fly: q is a non-empty list of non-negative int (the object's weights), w a
non-negative int (the maximum possible weight): weights are not negative, and an object has parts."""

from loop.oracles import gen


def contract(q, w):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(q, list) or not all(type(e) is int for e in q):
        return "q must be a list of int"
    if not q:
        return "q must be non-empty"
    if any(e < 0 for e in q):
        return "weights must be non-negative"
    if type(w) is not int or w < 0:
        return "w must be a non-negative int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    q = gen.int_list(rng, size, lo=0, min_len=1)
    if rng.random() < 0.6:
        half = q[: (len(q) + 1) // 2]
        q = half + half[::-1][len(q) % 2:]
        if rng.random() < 0.2:
            q[rng.randrange(len(q))] += 1
    s = sum(q)
    w = gen.pick(rng, s, lambda: max(0, s - 1), lambda: s + rng.randint(0, 10),
                 lambda: gen.integer(rng, size, lo=0))
    return [q, w]
