# wrong: boundary: float division loses precision past 2**53; e.g. choose_num(1, 2**53 + 3) returns 9007199254740996, expected 9007199254740994
import math


def choose_num(x, y):
    if x > y:
        return -1
    even = math.floor(y / 2) * 2
    return even if even >= x else -1
