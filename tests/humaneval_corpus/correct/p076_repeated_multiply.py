# HumanEval/076: exact integer powers by repeated multiplication with special cases n in {-1, 0, 1}
def is_simple_power(x, n):
    if n == 1:
        return x == 1
    if n == 0:
        return x in (0, 1)        # 0**0 == 1, 0**k == 0
    if n == -1:
        return x in (1, -1)
    if x == 0:
        return False
    p = 1
    while abs(p) <= abs(x):
        if p == x:
            return True
        p *= n
    return False
