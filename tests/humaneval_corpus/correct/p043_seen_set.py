# HumanEval/043: single pass with a set of values seen so far (two positions, possibly equal values like 0, 0)
def pairs_sum_to_zero(l):
    seen = set()
    for x in l:
        if -x in seen:
            return True
        seen.add(x)
    return False
