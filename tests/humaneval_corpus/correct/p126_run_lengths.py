# HumanEval/126: one pass over adjacent pairs tracking the current run length of equal values
def is_sorted(lst):
    run = 1
    for prev, cur in zip(lst, lst[1:]):
        if cur < prev:
            return False
        if cur == prev:
            run += 1
            if run > 2:
                return False
        else:
            run = 1
    return True
