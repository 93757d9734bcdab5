"""HumanEval/69 search: lst is a non-empty list of positive int."""

from loop.oracles import gen


def contract(lst):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(lst, list) or not all(type(e) is int for e in lst):
        return "lst must be a list of int"
    if not lst:
        return "lst must be non-empty"
    if any(e < 1 for e in lst):
        return "elements must be positive"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.6:
        hi = rng.randint(1, max(1, min(10, size)))
        lst = [rng.randint(1, hi) for _ in range(gen.length(rng, size, lo=1))]
    elif r < 0.8:
        lst = []
        for _ in range(rng.randint(1, 4)):
            v = rng.randint(1, 3 * size)
            lst += [v] * max(1, v + rng.choice((-1, 0, 0, 1)))
        rng.shuffle(lst)
    else:
        lst = gen.int_list(rng, size, lo=1, min_len=1)
    return [lst]


CANONICAL = """\
    # search([2**40]): "Return the greatest integer ... If no such a value exist, return -1"; the
    # canonical allocates a list of max(lst) + 1 counters and runs out of memory on large values.
    freq = {}
    for v in lst:
        freq[v] = freq.get(v, 0) + 1
    ans = -1
    for v, f in freq.items():
        if f >= v and v > ans:
            ans = v
    return ans
"""
FIXES = [(([2 ** 40],), -1), (([1, 2 ** 40, 2 ** 40],), 1)]
