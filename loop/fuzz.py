"""Moved to loop.oracles.fuzz; this name stays so task folders written with `from loop import fuzz` load
(the same module object, not a copy)."""

import sys

from loop.oracles import fuzz as _fuzz

sys.modules[__name__] = _fuzz
