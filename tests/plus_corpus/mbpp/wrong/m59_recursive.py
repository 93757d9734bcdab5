# wrong: long_input: recursion one level per n; e.g. is_octagonal(5000) raises RecursionError, expected 74990000
def is_octagonal(n):
    if n == 1:
        return 1
    return is_octagonal(n - 1) + 6 * n - 5
