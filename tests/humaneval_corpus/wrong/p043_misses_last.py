# HumanEval/043: wrong on ([1, -1],) -> False, right: True
def pairs_sum_to_zero(l):
    for i in range(len(l)):
        for j in range(i + 1, len(l) - 1):
            if l[i] + l[j] == 0:
                return True
    return False
