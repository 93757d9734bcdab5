"""Moved to loop.oracles.gen; this name stays so task folders and contracts written with `from loop import
gen` load (the same module object, not a copy)."""

import sys

from loop.oracles import gen as _gen

sys.modules[__name__] = _gen
