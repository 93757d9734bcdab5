# HumanEval/044: repeated divmod collecting digits; ValueError on base outside 2..9 or negative x
def change_base(x: int, base: int):
    if type(base) is not int or not 2 <= base <= 9:
        raise ValueError("base must be an integer from 2 to 9")
    if type(x) is not int or x < 0:
        raise ValueError("x must be a non-negative integer")
    if x == 0:
        return '0'
    digits = []
    while x:
        x, r = divmod(x, base)
        digits.append('0123456789'[r])
    return ''.join(reversed(digits))
