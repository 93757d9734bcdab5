from itertools import zip_longest


def sort_even(l: list):
    out = []
    for e, o in zip_longest(sorted(l[0::2]), l[1::2]):
        out.append(e)
        if o is not None:
            out.append(o)
    return out[:len(l)]
