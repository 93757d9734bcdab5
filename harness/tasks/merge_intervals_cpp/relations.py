"""Relations for merge_intervals_cpp: HALF-OPEN [lo, hi) 32-bit intervals, lo < hi, overlapping/touching merge.
Trusted harness code (runs in the parent): seeded inputs reaching INT_MIN/INT_MAX plus properties to keep.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from loop import relations as R

CLOSED = False
BOUNDS = (R.INT32_MIN, R.INT32_MAX)
MAX_SIZE = 40


def generate(rng: random.Random, size: int) -> list[list[int]]:
    """Empty/single lists, touching chains, nesting, pieces anchored at INT_MIN and INT_MAX, any order."""
    return R.gen_intervals(rng, size, closed=CLOSED, bounds=BOUNDS)


def validate_input(x: Any) -> str | None:
    return R.validate_intervals(x, closed=CLOSED, bounds=BOUNDS, bounds_name="32-bit")


def canonicalize(output: Any) -> list[list[int]]:
    """Sorted pairs; ValueError if malformed, empty, outside 32 bits, or overlapping/touching (should be merged)."""
    return R.canonical_intervals(output, closed=CLOSED, bounds=BOUNDS)


def shrink(x: Any) -> Iterator[Any]:
    return R.shrink_intervals(x)


def _sorted_disjoint(output: Any) -> str | None:
    return R.check_sorted_disjoint(output, closed=CLOSED, bounds=BOUNDS)


# Passed by value in C++: arg_after is None, so there is no input_not_mutated relation.
RELATIONS: list[R.Relation] = [
    R.permutation(canon=canonicalize),
    R.idempotence(canon=canonicalize),
    R.interval_measure(closed=CLOSED),
    R.interval_cover(closed=CLOSED),
    R.output_contract(_sorted_disjoint),
    R.agrees_with_reference(canon=canonicalize),
]
