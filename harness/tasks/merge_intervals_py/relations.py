"""Relations for merge_intervals_py: CLOSED [lo, hi] intervals, points allowed, overlapping/touching merge.
Trusted harness code (runs in the parent): seeded inputs plus the properties any correct merge keeps.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from loop.oracles.common import agrees_with_reference, idempotence, input_not_mutated, output_contract, permutation
from loop.oracles.engine import Relation
from loop.oracles.intervals import (
    canonical_intervals, check_sorted_disjoint, gen_intervals, interval_cover, interval_measure, shrink_intervals,
    validate_intervals,
)

CLOSED = True
BOUNDS = (-10**9, 10**9)  # generator domain; the contract itself takes any Python ints
MAX_SIZE = 40


def generate(rng: random.Random, size: int) -> list[list[int]]:
    """Empty/single lists, chains that touch or sit one integer apart, points, nesting, ±1e9, any order."""
    return gen_intervals(rng, size, closed=CLOSED, bounds=BOUNDS)


def validate_input(x: Any) -> str | None:
    return validate_intervals(x, closed=CLOSED)


def canonicalize(output: Any) -> list[list[int]]:
    """Sorted pairs; ValueError if malformed or if pieces overlap/touch (they should have been merged)."""
    return canonical_intervals(output, closed=CLOSED)


def shrink(x: Any) -> Iterator[Any]:
    return shrink_intervals(x)


def _sorted_disjoint(output: Any) -> str | None:
    return check_sorted_disjoint(output, closed=CLOSED)


RELATIONS: list[Relation] = [
    permutation(canon=canonicalize),
    idempotence(canon=canonicalize),
    interval_measure(closed=CLOSED),
    interval_cover(closed=CLOSED),
    output_contract(_sorted_disjoint),
    input_not_mutated(),
    agrees_with_reference(canon=canonicalize),
]
