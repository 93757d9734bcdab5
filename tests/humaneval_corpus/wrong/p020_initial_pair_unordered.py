# HumanEval/020: wrong on ([2.0, 1.0],) -> (2.0, 1.0), right: (1.0, 2.0)
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    best = (numbers[0], numbers[1])
    best_d = abs(numbers[0] - numbers[1])
    for i in range(len(numbers)):
        for j in range(i + 1, len(numbers)):
            d = abs(numbers[i] - numbers[j])
            if d < best_d:
                best_d = d
                best = (min(numbers[i], numbers[j]), max(numbers[i], numbers[j]))
    return best
