# wrong: boundary: starts from a 32-bit INT_MAX sentinel; e.g. smallest_num([2147483648, 4294967296]) returns 2147483647, expected 2147483648
def smallest_num(xs):
    smallest = 2 ** 31 - 1
    for x in xs:
        if x < smallest:
            smallest = x
    return smallest
