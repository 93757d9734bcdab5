# HumanEval/020: brute force over all index pairs, keeping the FIRST pair (in input order) at the minimal distance
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    if len(numbers) < 2:
        raise ValueError("need at least two numbers")
    best = None
    for i in range(len(numbers)):
        a = numbers[i]
        for j in range(i + 1, len(numbers)):
            b = numbers[j]
            d = abs(a - b)
            if best is None or d < best[0]:
                best = (d, min(a, b), max(a, b))
    return (best[1], best[2])
