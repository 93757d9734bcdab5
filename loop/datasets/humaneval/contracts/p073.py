"""HumanEval/73 smallest_change: arr is a list of int (may be empty)."""

from loop.oracles import gen


def contract(arr):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(arr, list) or not all(type(e) is int for e in arr):
        return "arr must be a list of int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    arr = gen.int_list(rng, size)
    if arr and rng.random() < 0.5:
        half = arr[: (len(arr) + 1) // 2]
        arr = half + half[::-1][len(arr) % 2:]
        for _ in range(rng.randint(0, 3)):
            arr[rng.randrange(len(arr))] = gen.integer(rng, 2)
    return [arr]
