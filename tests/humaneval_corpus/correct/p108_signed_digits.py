# HumanEval/108: signed digit sum via divmod on abs(n), leading digit negated for negative numbers
def _signed_digit_sum(n):
    m = abs(n)
    total = 0
    lead = 0
    while m:
        m, d = divmod(m, 10)
        total += d
        lead = d            # the last digit extracted is the leading digit
    if n < 0:
        total -= 2 * lead
    return total


def count_nums(arr):
    return sum(1 for x in arr if _signed_digit_sum(x) > 0)
