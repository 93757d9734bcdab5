import math


def choose_num(x, y):
    top = math.floor(y)  # exact for ints of any size
    if top % 2:
        top -= 1
    return top if top >= x else -1
