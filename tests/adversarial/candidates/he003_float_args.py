# expect: stable_fail relation:arguments_agree
# The right answer, but the caller's ints are left as floats ([1, -2] becomes [1.0, -2.0]): equal under
# `==`, a change of type all the same (issue 42).
from typing import List


def below_zero(operations: List[int]) -> bool:
    operations[:] = [float(op) for op in operations]
    balance = 0
    for op in operations:
        balance += op
        if balance < 0:
            return True
    return False
