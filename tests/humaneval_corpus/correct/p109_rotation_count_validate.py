# HumanEval/109: a rotation of a sorted list has at most one descent (cyclically); ValueError on repeated elements
def move_one_ball(arr):
    if len(set(arr)) != len(arr):
        raise ValueError("the elements must be unique")
    n = len(arr)
    descents = sum(1 for i in range(n) if arr[i] > arr[(i + 1) % n])
    return descents <= 1
