from itertools import zip_longest

_MISSING = object()


def sort_even(l: list):
    out = []
    for e, o in zip_longest(sorted(l[0::2]), l[1::2], fillvalue=_MISSING):
        out.append(e)
        if o is not _MISSING:
            out.append(o)
    return out
