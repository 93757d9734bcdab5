# HumanEval/076: wrong on (243, 3) -> False, right: True
import math


def is_simple_power(x, n):
    if x == 1:
        return True
    if n == 1:
        return False
    k = int(math.log(x, n))
    return n ** k == x
