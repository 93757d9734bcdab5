# HumanEval/122: "at most two digits" as -99 <= x <= 99 (a minus sign is not a digit); ValueError outside the constraints
def add_elements(arr, k):
    if not 1 <= len(arr) <= 100:
        raise ValueError("arr must have between 1 and 100 elements")
    if type(k) is not int or not 1 <= k <= len(arr):
        raise ValueError("k must satisfy 1 <= k <= len(arr)")
    return sum(x for x in arr[:k] if -99 <= x <= 99)
