# HumanEval/013: iterative Euclid with remainders, result normalised to be non-negative
def greatest_common_divisor(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return abs(a)
