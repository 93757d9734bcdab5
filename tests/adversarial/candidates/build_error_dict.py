# expect: stable_fail
# loop grade: answer the import handshake with {"build_error": <a dict>} (not a string) on the result pipe.
# _build_python keeps it as program.build_error; the grade's detail is then a dict, which SQLite cannot bind.
import os
import sys

fd = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else None
for f in ([fd] if fd is not None else range(3, 64)):
    try:
        os.write(f, b'{"build_error": {"x": [1, 2]}}\n')
    except OSError:
        pass
os._exit(0)


def merge_intervals(intervals):
    return []
