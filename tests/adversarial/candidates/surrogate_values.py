# expect: stable_fail
# Lone surrogates in what it returns, raises and prints: none of it is UTF-8 that SQLite or a terminal takes.
import sys

print("\ud800 printed", file=sys.stderr)
CALLS = [0]


def merge_intervals(intervals):
    CALLS[0] += 1
    if CALLS[0] % 2:
        raise ValueError("\udcff raised")
    return [["\ud800x", 1]]
