import random


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Nondeterminism: right, except on about 1 call in 20, chosen by an unseeded random draw."""
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if random.random() < 0.05 and merged:
        merged[0][1] += 1
    return merged
