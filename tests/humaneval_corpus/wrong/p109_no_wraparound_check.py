# HumanEval/109: wrong on ([1, 3, 2],) -> True, right: False
def move_one_ball(arr):
    drops = 0
    for i in range(1, len(arr)):
        if arr[i] < arr[i - 1]:
            drops += 1
    return drops <= 1
