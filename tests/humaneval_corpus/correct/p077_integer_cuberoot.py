# HumanEval/077: exact integer cube root by bisection on |a| (no float rounding for huge integers)
def iscube(a):
    m = abs(a)
    lo, hi = 0, 1
    while hi ** 3 < m:
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if mid ** 3 < m:
            lo = mid + 1
        else:
            hi = mid
    return lo ** 3 == m
