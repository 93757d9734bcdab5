"""HumanEval/43 pairs_sum_to_zero: l is a list of int with at most one 0 (whether two zeros are "two distinct
elements" summing to zero is ambiguous: distinct positions or distinct values)."""

from loop.oracles import gen


def contract(l):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(l, list) or not all(type(e) is int for e in l):
        return "l must be a list of int"
    if l.count(0) > 1:
        return "two zeros: 'distinct elements' is ambiguous"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    small = rng.random() < 0.5
    l = gen.int_list(rng, 2 if small else size, max_len=8 * size)
    seen_zero = False
    out = []
    for v in l:
        if v == 0:
            if seen_zero:
                continue
            seen_zero = True
        out.append(v)
    r = rng.random()
    if out and r < 0.3:
        # plant a pair x, -x (x != 0) somewhere
        x = rng.choice(out) or rng.randint(1, 9)
        out.insert(rng.randint(0, len(out)), -x)
    elif r < 0.5:
        # remove every pair: keep only one sign per magnitude
        kept, mags = [], set()
        for v in out:
            if v != 0 and -v in mags:
                continue
            mags.add(v)
            kept.append(v)
        out = kept
    return [out]
