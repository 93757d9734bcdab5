def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Merge overlapping or touching closed intervals.

    Each interval is [lo, hi] with lo <= hi; point intervals [x, x] are allowed.
    Two intervals merge when they overlap or touch (b.lo <= a.hi for a before b).
    Return the merged ranges in ascending order, pairwise disjoint.
    Never mutate the input list or its inner lists. Empty input gives [].
    """
