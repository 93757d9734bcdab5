# wrong: mutation: sorts the caller's list in place; e.g. unique_digits([15, 1]) mutates its argument to [1, 15], expected it unchanged
def unique_digits(x):
    x.sort()
    return [n for n in x if all(d in '13579' for d in str(n))]
