# expect: stable_pass
# Correct code whose reply carries a lone surrogate (the endpoint's JSON says "\ud800" where the marker
# below stands): valid JSON, but no UTF-8, so hashing or storing it as it is would fail.
S = "@@SURR@@"


def merge_intervals(intervals):
    out = []
    for lo, hi in sorted([list(iv) for iv in intervals]):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out
