# wrong: long_input: recursion one level per element; e.g. intersperse(list(range(5000)), 0) raises RecursionError, expected a list of 9999 numbers
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    if len(numbers) <= 1:
        return list(numbers)
    return [numbers[0], delimeter] + intersperse(numbers[1:], delimeter)
