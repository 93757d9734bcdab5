import time


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Nondeterminism: right, except when the clock's nanoseconds are a multiple of 7 (about 1 call in 7)."""
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if time.perf_counter_ns() % 7 == 0 and merged:
        merged[0][1] += 1
    return merged
