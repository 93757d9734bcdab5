# HumanEval/083: inclusion-exclusion closed form 18 * 10**(n-2) for n >= 2; ValueError on n < 1
def starts_one_ends(n):
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    if n == 1:
        return 1
    starts = 10 ** (n - 1)          # 1 followed by any n-1 digits
    ends = 9 * 10 ** (n - 2)        # first digit 1..9, last digit 1
    both = 10 ** (n - 2)
    return starts + ends - both
