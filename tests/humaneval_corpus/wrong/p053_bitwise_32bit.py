# HumanEval/053: wrong on (2147483647, 1) -> -2147483648, right: 2147483648
def add(x: int, y: int):
    mask = 0xFFFFFFFF
    x &= mask
    y &= mask
    while y:
        x, y = (x ^ y) & mask, ((x & y) << 1) & mask
    return x if x <= 0x7FFFFFFF else ~(x ^ mask)
