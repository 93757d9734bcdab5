"""HumanEval/58 common: l1 and l2 are lists of int (may be empty, duplicates allowed)."""

from loop.oracles import gen


def contract(l1, l2):
    """None when the docstring allows these arguments, else a short reason."""
    for l in (l1, l2):
        if not isinstance(l, list) or not all(type(e) is int for e in l):
            return "l1 and l2 must be lists of int"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    l1 = gen.int_list(rng, size)
    l2 = gen.int_list(rng, size)
    if l1 and rng.random() < 0.6:
        for _ in range(rng.randint(1, len(l1))):
            l2.insert(rng.randint(0, len(l2)), rng.choice(l1))
    return [l1, l2]
