# wrong: logic: integer division halves the product; e.g. find_Volume(1, 1, 1) returns 0, expected 0.5
def find_Volume(l, b, h):
    return (l * b * h) // 2
