# wrong: corner: the power-of-two test accepts zero, so equal numbers pass; e.g. differ_At_One_Bit_Pos(7, 7) returns True, expected False
def differ_At_One_Bit_Pos(a, b):
    x = a ^ b
    return x & (x - 1) == 0
