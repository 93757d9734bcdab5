# expect: stable_fail
# Kill every process it can signal (the fork server, bwrap's pid 1), then stop them for good measure.
import os
import signal

for sig in (signal.SIGSTOP, signal.SIGKILL):
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                os.kill(int(pid), sig)
            except OSError:
                pass


def merge_intervals(intervals):
    return []
