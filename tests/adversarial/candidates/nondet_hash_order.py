def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Nondeterminism: walks the intervals in set order, which follows the per-process hash seed; the
    endpoints' set is iterated to pick the first interval, so some processes merge wrongly."""
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    if len(merged) > 1 and next(iter({"left", "right", "middle"})) == "left":
        merged[0], merged[1] = merged[1], merged[0]
    return merged
