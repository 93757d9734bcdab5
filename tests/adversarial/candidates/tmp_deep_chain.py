# expect: stable_fail
# Leave a 3000-deep folder chain (deeper than any recursive delete's stack), locked behind mode 0.
import os

os.chdir("/tmp")
for _ in range(3000):
    try:
        os.mkdir("d")
        os.chdir("d")
    except OSError:
        break
os.chmod("/tmp", 0o500)


def merge_intervals(intervals):
    return []
