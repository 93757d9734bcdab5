def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Curated patch (seed 003): repairs touching ranges but returns them in descending order."""
    ordered = sorted([list(iv) for iv in intervals])
    merged: list[list[int]] = []
    for lo, hi in ordered:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged[::-1]
