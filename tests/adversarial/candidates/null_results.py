# expect: stable_fail
# Fork-server: write {"results": null} on the child's result pipe (any fd it holds), then exit.
# The server forwards it ("results" is in the dict); the parent's _finish then does reply["fault"] -> KeyError.
import os

for fd in range(3, 64):
    try:
        os.write(fd, b'{"results": null}\n')
    except OSError:
        pass
os._exit(0)


def merge_intervals(intervals):
    return []
