# HumanEval/004: wrong on ([1.0, 2.0, 6.0],) -> 1.6666666666666667, right: 2.0
from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    ordered = sorted(numbers)
    n = len(ordered)
    if n % 2:
        center = ordered[n // 2]
    else:
        center = (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return sum(abs(x - center) for x in numbers) / n
