# HumanEval/026: wrong on ([1, 1, 1],) -> [1], right: []
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    result = []
    for n in numbers:
        if n in result:
            result.remove(n)
        else:
            result.append(n)
    return result
