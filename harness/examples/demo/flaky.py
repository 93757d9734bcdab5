def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Curated flaky patch: correct, except in processes whose string hashing makes it reverse its output."""
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if hash("loop-flaky") % 2 == 1 and len(merged) > 1:
        return merged[::-1]
    return merged
