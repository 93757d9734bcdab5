def is_octagonal(n):
    return n * (3 * n - 2)
