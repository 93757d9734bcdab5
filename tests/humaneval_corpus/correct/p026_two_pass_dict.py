# HumanEval/026: first pass counts occurrences in a plain dict, second pass keeps values seen exactly once
from typing import List


def remove_duplicates(numbers: List[int]) -> List[int]:
    counts = {}
    for x in numbers:
        counts[x] = counts.get(x, 0) + 1
    return [x for x in numbers if counts[x] == 1]
