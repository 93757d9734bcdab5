def differ_At_One_Bit_Pos(a: int, b: int):
    x = a ^ b
    return x > 0 and x & (x - 1) == 0
