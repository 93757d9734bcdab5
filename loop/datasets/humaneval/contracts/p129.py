"""HumanEval/129 minPath: an N x N grid (N >= 2) of values in [1, N*N] with one 1; k a positive int."""

# grid is an N x N list of lists of int (N >= 2), values in [1, N*N] with 1 exactly once (the docstring says a
# permutation of 1..N*N; a test repeats another value), k a positive int.

from loop.oracles import gen


def contract(grid, k):
    if not isinstance(grid, list) or len(grid) < 2:
        return "grid must be a list of N >= 2 rows"
    n = len(grid)
    for row in grid:
        if not isinstance(row, list) or len(row) != n or not all(type(v) is int for v in row):
            return "each row must be a list of N int"
    values = [v for row in grid for v in row]
    if any(v < 1 or v > n * n for v in values):
        return "values must lie in [1, N*N]"
    if values.count(1) != 1:
        return "1 must appear exactly once"
    if type(k) is not int or k < 1:
        return "k must be a positive int"
    return None


def generate(rng, size):
    n = rng.choice((2, 2, 3, 3, 4, 5)) if rng.random() < 0.7 else rng.randint(2, 2 + size)
    values = list(range(1, n * n + 1))
    rng.shuffle(values)
    if rng.random() < 0.1:  # repeat some values other than 1 (as one of the tests does)
        for i in range(len(values)):
            if values[i] != 1 and rng.random() < 0.3:
                values[i] = rng.randint(2, n * n)
    grid = [values[i * n:(i + 1) * n] for i in range(n)]
    k = rng.choice((1, 2, 3, rng.randint(1, 12), gen.length(rng, size, 1)))
    return [grid, k]
