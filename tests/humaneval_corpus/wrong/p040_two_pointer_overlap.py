# HumanEval/040: wrong on ([-2, 1, 5],) -> True, right: False
def triples_sum_to_zero(l: list):
    s = sorted(l)
    n = len(s)
    for i in range(n - 2):
        lo, hi = i + 1, n - 1
        while lo <= hi:
            total = s[i] + s[lo] + s[hi]
            if total == 0:
                return True
            if total < 0:
                lo += 1
            else:
                hi -= 1
    return False
