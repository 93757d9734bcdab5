# expect: stable_fail relation:agrees_with_reference
# A memo keyed by (length, total): a later list with the same length and total gets an earlier list's
# answer. Alone in a fresh process every input is right; after the calls before it, a deterministic bug
# of that sequence (issue 42).
from typing import List

_memo = {}


def below_zero(operations: List[int]) -> bool:
    key = (len(operations), sum(operations))
    if key not in _memo:
        balance, answer = 0, False
        for op in operations:
            balance += op
            if balance < 0:
                answer = True
                break
        _memo[key] = answer
    return _memo[key]
