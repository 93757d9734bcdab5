# expect: stable_pass
# Correct, and it needs what every candidate may count on: write and read back files in /tmp and /dev/shm,
# and a POSIX message queue refused cleanly, not half there.
import os
import tempfile

for folder in ("/tmp", "/dev/shm"):
    path = os.path.join(folder, "scratch.txt")
    with open(path, "w") as fh:
        fh.write("ok")
    with open(path) as fh:
        assert fh.read() == "ok"
    os.unlink(path)
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "f"), "w").close()


def merge_intervals(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out
