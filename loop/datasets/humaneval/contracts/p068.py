"""HumanEval/68 pluck: arr is a list of non-negative int, length 0..10000 (the tests pass [])."""

from loop.oracles import gen


def contract(arr):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(arr, list) or not all(type(e) is int for e in arr):
        return "arr must be a list of int"
    if len(arr) > 10000:
        return "at most 10000 nodes"
    if any(e < 0 for e in arr):
        return "node values must be non-negative"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    arr = gen.int_list(rng, size, lo=0, max_len=10000)
    r = rng.random()
    if r < 0.2:
        arr = [v | 1 for v in arr]  # no even value
    elif r < 0.4 and arr:
        m = rng.choice(arr) & ~1
        for _ in range(rng.randint(1, 3)):
            arr.insert(rng.randint(0, len(arr)), m)  # repeated smallest-even candidates
    return [arr]
