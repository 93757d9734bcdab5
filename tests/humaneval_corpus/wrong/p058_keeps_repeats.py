# HumanEval/058: wrong on ([1, 1], [1]) -> [1, 1], right: [1]
def common(l1: list, l2: list):
    return sorted(x for x in l1 if x in l2)
