# expect: stable_fail
# An int too large for any float where a float is expected: the comparison itself would overflow.
def truncate_number(number: float) -> float:
    return 10 ** 400
