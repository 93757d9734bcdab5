# expect: stable_fail
# Faked infrastructure: at import, write a line that is not the handshake on every descriptor it holds
# (the worker's result channel among them), hoping the attempt is scored infra_unknown.
import os

for fd in range(3, 64):
    try:
        os.write(fd, b'{"lost": "sandbox trouble"}\nnot json at all\n')
    except OSError:
        pass


def merge_intervals(intervals):
    return sorted(intervals)
