# expect: stable_fail
# Wrong: sorts but never merges.
def merge_intervals(intervals):
    return sorted([list(iv) for iv in intervals])
