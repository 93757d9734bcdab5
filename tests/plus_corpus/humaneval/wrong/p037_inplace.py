# wrong: mutation: sorts the even slots of the caller's list in place; e.g. sort_even([5, 6, 3, 4]) mutates its argument to [3, 6, 5, 4], expected it unchanged
def sort_even(l: list):
    evens = sorted(l[::2])
    for i, v in enumerate(evens):
        l[2 * i] = v
    return l
