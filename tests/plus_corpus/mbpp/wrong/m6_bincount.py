# wrong: corner: counts the ones in bin(), which ignores two's complement for negatives; e.g. differ_At_One_Bit_Pos(-1, 0) returns True, expected False
def differ_At_One_Bit_Pos(a, b):
    return bin(a ^ b).count('1') == 1
