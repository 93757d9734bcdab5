# HumanEval/021: single pass min/max then affine map; ValueError on fewer than two or all-equal values
from typing import List


def rescale_to_unit(numbers: List[float]) -> List[float]:
    if len(numbers) < 2:
        raise ValueError("need at least two numbers")
    lo = hi = numbers[0]
    for x in numbers:
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    if lo == hi:
        raise ValueError("all numbers are equal; no linear map sends min to 0 and max to 1")
    span = hi - lo
    return [(x - lo) / span for x in numbers]
