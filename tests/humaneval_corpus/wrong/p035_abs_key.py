# HumanEval/035: wrong on ([-7, 2],) -> -7, right: 2
def max_element(l: list):
    return max(l, key=abs)
