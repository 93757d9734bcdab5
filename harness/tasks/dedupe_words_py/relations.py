"""Relations for dedupe_words_py: drop words equal to an earlier one under str.casefold(), keep first spellings.
Trusted harness code (runs in the parent): seeded word lists full of casefold traps plus properties to keep.
"""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Iterator
from typing import Any

from loop.oracles.common import (
    agrees_with_reference, idempotence, input_not_mutated, prefix_consistency, subsequence_of_input,
)
from loop.oracles.engine import Relation, generic_shrink
from loop.oracles.text import (
    CASEFOLD_DISTRACTORS, CASEFOLD_TRAPS, canonical_words, casefold_distinct, casefolds_kept, validate_words, vary_case,
)

MAX_SIZE = 40
_MODES = ("empty", "single", "ascii_case", "traps", "mixed", "repeats", "empties")
_WEIGHTS = (1, 2, 4, 4, 6, 2, 1)
_EXTRA = ("Ärger", "ärger", "ÄRGER", "Ωμέγα", "ωμέγα", "日本", "naïve", "NAÏVE", "x", "X")


def _ascii_word(rng: random.Random) -> str:
    return "".join(rng.choice("abAsS") for _ in range(rng.randint(0, 3)))


def _pool(rng: random.Random) -> list[str]:
    pool = [_ascii_word(rng) for _ in range(rng.randint(1, 4))]
    for groups in (CASEFOLD_TRAPS, CASEFOLD_DISTRACTORS):
        for group in rng.sample(groups, rng.randint(1, 3)):
            pool += rng.sample(group, rng.randint(1, len(group)))
    pool += rng.sample(_EXTRA, rng.randint(0, 3))
    return pool


def generate(rng: random.Random, size: int) -> list[str]:
    """Empty/single lists, case variants, ß/ﬁ/σ/İ-style traps, look-alikes, empty strings, repeats."""
    mode = rng.choices(_MODES, weights=_WEIGHTS)[0]
    if mode == "empty":
        return []
    n = 1 if mode == "single" else rng.randint(1, max(1, size))
    if mode == "ascii_case":
        base = ["".join(rng.choice(string.ascii_lowercase[:3]) for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(1, 4))]
        return [vary_case(rng, rng.choice(base)) for _ in range(n)]
    if mode == "traps":
        pool = [w for group in rng.sample(CASEFOLD_TRAPS, rng.randint(1, 3)) for w in group]
        return [rng.choice(pool) for _ in range(n)]
    if mode == "repeats":
        word = rng.choice(_pool(rng))
        return [word if rng.random() < 0.6 else vary_case(rng, word) for _ in range(n)]
    if mode == "empties":
        return [rng.choice(("", "", "a", "A", " ")) for _ in range(n)]
    pool = _pool(rng)  # single, mixed
    words = [rng.choice(pool) for _ in range(n)]
    return [vary_case(rng, w) if rng.random() < 0.3 else w for w in words]


def shrink(x: Any) -> Iterator[Any]:
    """Generic cuts first, then the same character cut from every word of one casefold class at once."""
    if not isinstance(x, list) or not all(isinstance(w, str) for w in x):
        yield from generic_shrink(x)
        return
    shrinks = generic_shrink(x)
    yield from itertools.islice(shrinks, 2 * len(x))  # the list-level cuts come first
    classes: dict[str, list[int]] = {}
    for i, w in enumerate(x):
        classes.setdefault(w.casefold(), []).append(i)
    for members in classes.values():
        if len(members) < 2:
            continue
        for k in range(min(len(x[i]) for i in members)):
            y = list(x)
            for i in members:
                y[i] = x[i][:k] + x[i][k + 1:]
            yield y
    yield from shrinks


validate_input = validate_words
canonicalize = canonical_words


RELATIONS: list[Relation] = [
    idempotence(canon=canonicalize),
    subsequence_of_input(),
    casefold_distinct(),
    casefolds_kept(),
    prefix_consistency(canon=canonicalize),
    input_not_mutated(),
    agrees_with_reference(canon=canonicalize),
]
