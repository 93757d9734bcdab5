# HumanEval/115: per-well ceiling division with -(-w // c); ValueError on inputs outside the stated constraints
def max_fill(grid, capacity):
    if type(capacity) is not int or not 1 <= capacity <= 10:
        raise ValueError("capacity must be an integer in 1..10")
    if not grid:
        raise ValueError("grid must have at least one well")
    width = len(grid[0])
    if width < 1:
        raise ValueError("wells must have length >= 1")
    trips = 0
    for row in grid:
        if len(row) != width:
            raise ValueError("all wells must have the same length")
        if any(v not in (0, 1) or type(v) is not int for v in row):
            raise ValueError("grid cells must be 0 or 1")
        water = sum(row)
        trips += -(-water // capacity)
    return trips
