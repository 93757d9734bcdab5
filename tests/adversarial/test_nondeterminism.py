"""The nondeterminism the old design (every repeat runs every trial) caught is still caught with the trials
split across repeats: candidates whose answers follow an unseeded random draw, the clock, the hash seed's set
order, or state kept across calls. Same verdict under both designs, never a pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from loop import tasks
from loop import verdicts as V
from loop.grading.model import Options
from loop.kinds import grade
from loop.sandbox import SandboxConfig

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = Path(__file__).resolve().parent / "candidates"
WANT = {"nondet_random.py": V.STABLE_FAIL, "nondet_clock.py": V.STABLE_FAIL,
        "nondet_hash_order.py": V.FLAKY, "nondet_global_state.py": V.STABLE_FAIL}


@pytest.mark.sandbox
@pytest.mark.parametrize("name", sorted(WANT))
def test_nondeterminism_is_caught_as_before(name):
    task = tasks.load(ROOT, "merge_intervals_py")
    source = (CANDIDATES / name).read_text()
    new, old = (grade(task, source, SandboxConfig(), Options(seed=1, trials_per_repeat=per)) for per in (False, True))
    assert new.verdict == old.verdict == WANT[name], (new.verdict, old.verdict)
