# HumanEval/046: wrong on (2,) -> 0, right: 2
def fib4(n: int):
    a, b, c, d = 0, 0, 2, 0
    for _ in range(n - 3):
        a, b, c, d = b, c, d, a + b + c + d
    return d
