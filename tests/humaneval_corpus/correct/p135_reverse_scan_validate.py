# HumanEval/135: scan from the right for the first descent; ValueError on duplicate values
def can_arrange(arr):
    if len(set(arr)) != len(arr):
        raise ValueError("the array must not contain duplicate values")
    for i in range(len(arr) - 1, 0, -1):
        if arr[i] < arr[i - 1]:
            return i
    return -1
