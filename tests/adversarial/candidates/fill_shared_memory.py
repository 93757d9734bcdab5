# expect: stable_fail
# Hold memory across candidates: 640 MiB in /dev/shm, a file on the root and in /dev, a System V segment.
import ctypes
import os

for path in ("/dev/shm/hold", "/hold", "/dev/hold"):
    try:
        with open(path, "wb") as fh:
            for _ in range(640):
                fh.write(b"\1" * (1 << 20))
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
shm = libc.shmget(0, 32 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
if shm >= 0:
    addr = libc.shmat(shm, None, 0)
    if addr not in (None, ctypes.c_void_p(-1).value):
        ctypes.memset(addr, 1, 32 << 20)
        libc.shmdt(ctypes.c_void_p(addr))


def merge_intervals(intervals):
    return []
