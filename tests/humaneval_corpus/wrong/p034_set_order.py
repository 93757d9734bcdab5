# HumanEval/034: wrong on ([10, -1],) -> [10, -1], right: [-1, 10]
def unique(l: list):
    return list(set(l))
