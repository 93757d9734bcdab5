"""Relations for merge_intervals_cpp: HALF-OPEN [lo, hi) 32-bit intervals, lo < hi, overlapping/touching merge.
Trusted harness code (runs in the parent): seeded inputs reaching INT_MIN/INT_MAX plus properties to keep.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from loop.oracles.common import agrees_with_reference, idempotence, output_contract, permutation
from loop.oracles.engine import Relation
from loop.oracles.intervals import (
    INT32_MAX, INT32_MIN, canonical_intervals, check_sorted_disjoint, gen_intervals, interval_cover, interval_measure,
    shrink_intervals, validate_intervals,
)

CLOSED = False
BOUNDS = (INT32_MIN, INT32_MAX)
MAX_SIZE = 40


def generate(rng: random.Random, size: int) -> list[list[int]]:
    """Empty/single lists, touching chains, nesting, pieces anchored at INT_MIN and INT_MAX, any order."""
    return gen_intervals(rng, size, closed=CLOSED, bounds=BOUNDS)


def validate_input(x: Any) -> str | None:
    return validate_intervals(x, closed=CLOSED, bounds=BOUNDS, bounds_name="32-bit")


def canonicalize(output: Any) -> list[list[int]]:
    """Sorted pairs; ValueError if malformed, empty, outside 32 bits, or overlapping/touching (should be merged)."""
    return canonical_intervals(output, closed=CLOSED, bounds=BOUNDS)


def shrink(x: Any) -> Iterator[Any]:
    return shrink_intervals(x)


def _sorted_disjoint(output: Any) -> str | None:
    return check_sorted_disjoint(output, closed=CLOSED, bounds=BOUNDS)


# Passed by value in C++: arg_after is None, so there is no input_not_mutated relation.
RELATIONS: list[Relation] = [
    permutation(canon=canonicalize),
    idempotence(canon=canonicalize),
    interval_measure(closed=CLOSED),
    interval_cover(closed=CLOSED),
    output_contract(_sorted_disjoint),
    agrees_with_reference(canon=canonicalize),
]
