# expect: stable_fail
# Use up the uid's POSIX message-queue budget (RLIMIT_MSGQUEUE counts per uid, across sandboxes) and
# leave the queues for whoever comes next.
import ctypes
import ctypes.util

rt = ctypes.CDLL(ctypes.util.find_library("rt") or "librt.so.1", use_errno=True)
for i in range(64):
    if rt.mq_open(f"/hold{i}".encode(), 0o102, 0o600, None) < 0:  # O_RDWR | O_CREAT
        break


def merge_intervals(intervals):
    return []
