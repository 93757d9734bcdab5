# HumanEval/009: wrong on ([-3, -1],) -> [0, 0], right: [-3, -1]
from typing import List, Tuple


def rolling_max(numbers: List[int]) -> List[int]:
    result = []
    current = 0
    for n in numbers:
        if n > current:
            current = n
        result.append(current)
    return result
