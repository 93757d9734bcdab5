# wrong: mutation: removes the non-positive numbers from the caller's list; e.g. get_positive([-1, 2]) mutates its argument to [2], expected it unchanged
def get_positive(l: list):
    for x in list(l):
        if x <= 0:
            l.remove(x)
    return l
