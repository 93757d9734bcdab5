# expect: stable_pass
# A correct merge written as a single pass over sorted copies (another style than the reference).
def merge_intervals(intervals):
    merged = []
    for lo, hi in sorted((a, b) for a, b in intervals):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged
