# HumanEval/020: sort then scan adjacent pairs, keeping the LAST tied closest pair; ValueError if fewer than two
from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    if len(numbers) < 2:
        raise ValueError("need at least two numbers")
    s = sorted(numbers)
    best = None
    best_pair = None
    for lo, hi in zip(s, s[1:]):
        d = hi - lo
        if best is None or d <= best:
            best = d
            best_pair = (lo, hi)
    return best_pair
