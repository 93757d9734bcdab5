# expect: stable_fail relation:input_not_mutated
# Correct output, then a thread empties the caller's list 2 ms after the call returned.
import queue
import threading
import time

_later = queue.Queue()


def _clear():
    while True:
        xs = _later.get()
        time.sleep(0.002)
        xs.clear()


threading.Thread(target=_clear, daemon=True).start()


def merge_intervals(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    _later.put(intervals)
    return out
