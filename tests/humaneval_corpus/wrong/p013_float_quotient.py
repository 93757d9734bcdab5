# HumanEval/013: wrong on (100000000000000001, 7) -> -1, right: 1
def greatest_common_divisor(a: int, b: int) -> int:
    a, b = abs(a), abs(b)
    while b:
        q = int(a / b)
        a, b = b, a - q * b
    return a
