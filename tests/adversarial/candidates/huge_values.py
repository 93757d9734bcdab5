# expect: stable_fail
# Values that crash a comparison or a decoder: a 5000-digit integer, then a 100,000-deep list.
import sys

sys.set_int_max_str_digits(0)
CALLS = [0]


def merge_intervals(intervals):
    CALLS[0] += 1
    if CALLS[0] % 2:
        return [[10 ** 5000, 1]]
    deep = []
    for _ in range(100000):
        deep = [deep]
    return deep
