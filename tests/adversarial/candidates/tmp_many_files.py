# expect: stable_fail
# Leave 100,000 files in /tmp for the next candidate's clean-up to pay for.
import os

os.makedirs("/tmp/litter", exist_ok=True)
for i in range(100000):
    try:
        os.close(os.open(f"/tmp/litter/{i}", os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError:
        break


def merge_intervals(intervals):
    return []
