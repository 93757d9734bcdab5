CALLS = [0]


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Nondeterminism: global state across calls; right for the first 12 calls of a process, then wrong."""
    CALLS[0] += 1
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if CALLS[0] > 12 and merged:
        merged[-1][1] += 1
    return merged
