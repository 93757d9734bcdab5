# wrong: mutation: increments the caller's list in place; e.g. incr_list([1, 2]) mutates its argument to [2, 3], expected it unchanged
def incr_list(l: list):
    for i in range(len(l)):
        l[i] += 1
    return l
