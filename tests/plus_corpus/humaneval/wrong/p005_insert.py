# wrong: mutation: inserts the delimiters into the caller's list; e.g. intersperse([1, 2, 3], 0) mutates its argument to [1, 0, 2, 0, 3], expected it unchanged
from typing import List


def intersperse(numbers: List[int], delimeter: int) -> List[int]:
    for i in range(len(numbers) - 1, 0, -1):
        numbers.insert(i, delimeter)
    return numbers
