# HumanEval/031: wrong on (341,) -> True, right: False
def is_prime(n):
    if n < 2:
        return False
    if n in (2, 3):
        return True
    if n % 2 == 0:
        return False
    return pow(2, n - 1, n) == 1
