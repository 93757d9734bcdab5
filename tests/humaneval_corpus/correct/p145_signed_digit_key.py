# HumanEval/145: stable sort keyed on the signed digit sum (leading digit carries the sign, as the tests require)
def _signed_digit_sum(n):
    digits = [int(ch) for ch in str(abs(n))]
    if n < 0:
        digits[0] = -digits[0]
    return sum(digits)


def order_by_points(nums):
    return sorted(nums, key=_signed_digit_sum)
