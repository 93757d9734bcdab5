# wrong: mutation: writes the sorted values back into the caller's list; e.g. sort_third([5, 6, 3, 4]) mutates its argument to [4, 6, 3, 5], expected it unchanged
def sort_third(l: list):
    l[::3] = sorted(l[::3])
    return l
