# HumanEval/122: wrong on ([-10], 1) -> 0, right: -10
def add_elements(arr, k):
    return sum(x for x in arr[:k] if len(str(x)) <= 2)
