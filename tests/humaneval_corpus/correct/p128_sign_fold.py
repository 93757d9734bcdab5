# HumanEval/128: fold of sign product with early zero, sum of magnitudes; None for empty input
def prod_signs(arr):
    if not arr:
        return None
    sign = 1
    magnitude = 0
    for x in arr:
        magnitude += abs(x)
        if x == 0:
            sign = 0
        elif x < 0:
            sign = -sign
    return sign * magnitude
