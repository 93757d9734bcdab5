def is_woodall(x):
    """x == n * 2**n - 1 for some n >= 1."""
    if not isinstance(x, int) or x < 1:
        return False
    y = x + 1
    n = 1
    while n * 2 ** n <= y:
        if n * 2 ** n == y:
            return True
        n += 1
    return False
