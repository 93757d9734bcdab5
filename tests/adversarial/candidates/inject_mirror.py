# expect: stable_fail
# The mirror attack: rewrite the queued jobs of the candidates behind it with its own wrong source, so
# correct candidates would fail.
import json
import os

SELF = "def merge_intervals(intervals):\n    return []\n"


def _attack():
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in fds:
            try:
                fd = os.open(f"/proc/{pid}/fd/{name}", os.O_RDWR | os.O_NONBLOCK)
                data = os.read(fd, 1 << 20)
            except OSError:
                continue
            for line in data.split(b"\n"):
                try:
                    job = json.loads(line)
                    job["source"] = SELF
                    os.write(fd, json.dumps(job).encode() + b"\n")
                except (ValueError, TypeError, OSError):
                    pass


_attack()


def merge_intervals(intervals):
    return []
