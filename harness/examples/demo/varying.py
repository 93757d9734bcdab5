import sys


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Curated patch: correct, but logs a set to stderr, whose order follows the per-process hash seed."""
    print("merging", {"alpha", "beta", "gamma", "delta", "epsilon"}, file=sys.stderr)
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged
