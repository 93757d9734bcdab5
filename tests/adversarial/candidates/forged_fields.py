# expect: stable_fail
# Forged replies whose fields are well-formed JSON but malformed values: an `after` with a bad tag, a
# `resource` that is a list, a `raised` that is an object, a set holding a list, a float tag that is not
# a float, for every id it might be asked; written on every descriptor at each call.
import json
import os

BAD = [{"ok": [[1, 5]], "after": {"t": 5}}, {"resource": [1, 2]}, {"raised": {"x": 1}},
       {"ok": {"s": [[1]]}}, {"ok": {"f": "nan-ish"}}, {"ok": {"d": [[[1], 2]]}}]


def merge_intervals(intervals):
    for i in range(1, 400):
        line = (json.dumps({"id": i, **BAD[i % len(BAD)]}) + "\n").encode()
        for fd in range(3, 64):
            try:
                os.write(fd, line)
            except OSError:
                pass
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out
