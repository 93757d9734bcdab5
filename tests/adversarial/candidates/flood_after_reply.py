# expect: stable_fail resource
# Correct values, and a thread started on the first call floods stdout (issue 28: the fork path let it pass).
import sys
import threading


def _flood():
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)
        sys.stdout.flush()


_started = []


def merge_intervals(intervals):
    out = []
    for s, e in sorted(map(tuple, intervals)):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    if not _started:
        _started.append(1)
        threading.Thread(target=_flood, daemon=True).start()
    return out
