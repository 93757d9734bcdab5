# expect: stable_pass
# A probe, not an attack: it answers correctly only if every way to hold memory that no size cap covers
# is refused (System V shared memory and message queues, memfd files, / and /dev); else it returns [].
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
held = []
if libc.shmget(0, 1 << 20, 0o1600) >= 0:
    held.append("shmget")
if libc.msgget(0, 0o1600) >= 0:
    held.append("msgget")
try:
    os.close(os.memfd_create("hold"))
    held.append("memfd_create")
except OSError:
    pass
for path in ("/hold", "/dev/hold", "/usr/hold"):
    try:
        open(path, "wb").close()
        held.append(path)
    except OSError:
        pass


def merge_intervals(intervals):
    if held:
        return []
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out
