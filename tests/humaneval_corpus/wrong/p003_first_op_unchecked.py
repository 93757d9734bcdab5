# HumanEval/003: wrong on ([-5],) -> False, right: True
from typing import List


def below_zero(operations: List[int]) -> bool:
    if not operations:
        return False
    balance = operations[0]
    for op in operations[1:]:
        balance += op
        if balance < 0:
            return True
    return False
