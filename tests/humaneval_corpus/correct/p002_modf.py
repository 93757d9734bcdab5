# HumanEval/002: math.modf splits off the fractional part exactly; ValueError on a non-positive number
import math


def truncate_number(number: float) -> float:
    if not number > 0:
        raise ValueError("number must be positive")
    frac, _ = math.modf(number)
    return frac
