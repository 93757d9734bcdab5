# expect: stable_fail relation:arguments_agree
# The right median from a sorted copy; then a thread sorts the caller's list 2 ms after the call returned.
import queue
import threading
import time

_later = queue.Queue()


def _sort():
    while True:
        xs = _later.get()
        time.sleep(0.002)
        xs.sort()


threading.Thread(target=_sort, daemon=True).start()


def median(l: list):
    s = sorted(l)
    n = len(s)
    _later.put(l)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
