# HumanEval/031: wrong on (9,) -> True, right: False
def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    for d in range(3, int(n ** 0.5), 2):
        if n % d == 0:
            return False
    return True
