# expect: stable_pass
# An innocent, correct candidate that keeps a modest 4 MB scratch table (well under the task's 512 MB).
SCRATCH = bytearray(4 << 20)


def merge_intervals(intervals):
    out = []
    for lo, hi in sorted([list(iv) for iv in intervals]):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out
