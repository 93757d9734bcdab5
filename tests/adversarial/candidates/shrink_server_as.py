# expect: stable_fail
# Fork server: lower the SERVER's RLIMIT_AS (prlimit needs only a matching uid, not ptrace access, so
# PR_SET_DUMPABLE 0 does not stop it) to what it maps now + 2 MiB. The server survives, but every later
# child is forked under that hard limit and cannot raise it back to the task's memory_mb (512 MiB):
# an innocent candidate that allocates a few MiB fails with MemoryError.
import os
import resource

try:
    server = os.getppid()
    with open(f"/proc/{server}/status") as fh:
        vm = next(int(l.split()[1]) << 10 for l in fh if l.startswith("VmSize:"))
    resource.prlimit(server, resource.RLIMIT_AS, (vm + (2 << 20), vm + (2 << 20)))
except Exception:
    pass


def merge_intervals(intervals):
    return []
