# wrong: mutation: sorts the caller's list to read its first element; e.g. smallest_num([3, 1, 2]) mutates its argument to [1, 2, 3], expected it unchanged
def smallest_num(xs):
    xs.sort()
    return xs[0]
