# HumanEval/046: sliding window of the last four terms in a deque, no recursion; ValueError on negative n
from collections import deque


def fib4(n: int):
    if type(n) is not int or n < 0:
        raise ValueError("n must be a non-negative integer")
    window = deque([0, 0, 2, 0], maxlen=4)
    if n < 4:
        return window[n]
    total = 2
    for _ in range(n - 3):
        nxt = total
        total += nxt - window[0]
        window.append(nxt)
    return window[-1]
