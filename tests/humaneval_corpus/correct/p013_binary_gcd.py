# HumanEval/013: Stein's binary GCD on absolute values (result is never negative)
def greatest_common_divisor(a: int, b: int) -> int:
    a, b = abs(a), abs(b)
    if a == 0:
        return b
    if b == 0:
        return a
    shift = 0
    while (a | b) & 1 == 0:
        a >>= 1
        b >>= 1
        shift += 1
    while a & 1 == 0:
        a >>= 1
    while b:
        while b & 1 == 0:
            b >>= 1
        if a > b:
            a, b = b, a
        b -= a
    return a << shift
