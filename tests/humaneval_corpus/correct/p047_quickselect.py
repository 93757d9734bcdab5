# HumanEval/047: iterative quickselect (Hoare-style partitions on a copy), average of the two middles for even length
def _select(a, k):
    lo, hi = 0, len(a) - 1
    while True:
        if lo == hi:
            return a[lo]
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]


def median(l: list):
    if not l:
        raise ValueError("median of an empty list")
    a = list(l)
    n = len(a)
    if n % 2:
        return _select(a, n // 2)
    return (_select(a, n // 2 - 1) + _select(a, n // 2)) / 2
