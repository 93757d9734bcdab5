# HumanEval/150: wrong on (4, 1, 2) -> 1, right: 2
def x_or_y(n, x, y):
    if n < 2:
        return y
    for i in range(2, n // 2):
        if n % i == 0:
            return y
    return x
