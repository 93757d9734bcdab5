# HumanEval/070: sort once, then alternate between a left and a right pointer
def strange_sort_list(lst):
    s = sorted(lst)
    out = []
    lo, hi = 0, len(s) - 1
    take_low = True
    while lo <= hi:
        if take_low:
            out.append(s[lo])
            lo += 1
        else:
            out.append(s[hi])
            hi -= 1
        take_low = not take_low
    return out
