"""HumanEval/87 get_row: lst is a list of lists of int (rows of any length, may be empty), x an int; the
(row, column) tuples of x, rows ascending, columns descending within a row."""

from loop.oracles import gen


def contract(lst, x):
    if not isinstance(lst, list) or not all(isinstance(r, list) and all(type(v) is int for v in r) for r in lst):
        return "lst must be a list of lists of int"
    if type(x) is not int:
        return "x must be an int"
    return None


def generate(rng, size):
    if rng.random() < 0.7:
        hi = rng.choice((1, 2, 3, 6))
        # few distinct values: most cells match, so the answer grows with the grid; kept to 20 x 20
        lst = [gen.int_list(rng, size, 0, hi, max_len=20) for _ in range(gen.length(rng, size, hi=20))]
        return [lst, rng.randint(0, hi + 1)]
    lst = [gen.int_list(rng, size) for _ in range(gen.length(rng, size))]
    vals = [v for r in lst for v in r]
    x = rng.choice(vals) if vals and rng.random() < 0.7 else gen.integer(rng, size)
    return [lst, x]
