# wrong: boundary: a float power loses exactness past 2**53; e.g. is_octagonal(1000000001) returns 3000000004000000000, expected 3000000004000000001
def is_octagonal(n):
    return int(3 * n ** 2.0 - 2 * n)
