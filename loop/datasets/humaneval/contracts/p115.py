"""HumanEval/115 max_fill: grid is a rectangular list of 1..100 rows of 1..100 ints each 0 or 1, capacity
an int in 1..10; the sum over rows of ceil(row's ones / capacity)."""

from loop.oracles import gen


def contract(grid, capacity):
    if not isinstance(grid, list) or not all(isinstance(r, list) for r in grid):
        return "grid must be a list of lists"
    if not 1 <= len(grid) <= 100:
        return "grid must have 1..100 rows"
    width = len(grid[0])
    if not 1 <= width <= 100 or any(len(r) != width for r in grid):
        return "all rows must have the same length, 1..100"
    if not all(type(v) is int and v in (0, 1) for r in grid for v in r):
        return "grid cells must be 0 or 1"
    if type(capacity) is not int or not 1 <= capacity <= 10:
        return "capacity must be an int in 1..10"
    return None


def generate(rng, size):
    rows = gen.length(rng, size, 1, 100)
    cols = gen.length(rng, size, 1, 100)
    p = rng.choice((0.0, 0.2, 0.5, 0.8, 1.0))
    grid = [[1 if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    return [grid, rng.choice((1, 10, rng.randint(1, 10), rng.randint(1, 4)))]
