"""Relations for dedupe_words_cpp: drop words equal to an earlier one when ASCII letters ignore case.
Trusted harness code (runs in the parent): seeded word lists with case variants, non-ASCII look-alikes that
must stay apart (ß/SS, Ä/ä: only A-Z fold), and bytes the wire must carry (quotes, backslashes, newlines).
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from typing import Any

from loop.oracles.common import agrees_with_reference, idempotence, prefix_consistency, subsequence_of_input
from loop.oracles.engine import Relation, generic_shrink
from loop.oracles.text import (
    CASEFOLD_DISTRACTORS, CASEFOLD_TRAPS, ascii_fold, canonical_words, casefold_distinct, casefolds_kept, validate_words,
)

MAX_SIZE = 40
_MODES = ("empty", "single", "ascii_case", "non_ascii", "mixed", "repeats", "wire")
_WEIGHTS = (1, 2, 6, 3, 6, 2, 2)
_WIRE = ('"', '\\', "\n", "\t", "a b", "A B", "\x7f", "\x01", "x\"Y", "X\"y", "\\n", "é\n")


def _vary(rng: random.Random, word: str) -> str:
    """A random case spelling of the ASCII letters of word (other characters as they are)."""
    return "".join(c.swapcase() if c in string.ascii_letters and rng.random() < 0.5 else c for c in word)


def _ascii_word(rng: random.Random) -> str:
    return "".join(rng.choice("abAB z") for _ in range(rng.randint(0, 4)))


def _non_ascii(rng: random.Random) -> list[str]:
    groups = rng.sample(CASEFOLD_TRAPS + CASEFOLD_DISTRACTORS, rng.randint(1, 3))
    return [w for group in groups for w in rng.sample(group, rng.randint(1, len(group)))]


def generate(rng: random.Random, size: int) -> list[str]:
    """Empty/single lists, ASCII case variants, Unicode case traps that ASCII folding must keep apart,
    repeats and words full of bytes the wire escapes."""
    mode = rng.choices(_MODES, weights=_WEIGHTS)[0]
    if mode == "empty":
        return []
    n = 1 if mode == "single" else rng.randint(1, max(1, size))
    if mode == "ascii_case":
        base = [_ascii_word(rng) for _ in range(rng.randint(1, 4))]
        return [_vary(rng, rng.choice(base)) for _ in range(n)]
    if mode == "non_ascii":
        pool = _non_ascii(rng)
        return [rng.choice(pool) for _ in range(n)]
    if mode == "wire":
        return [_vary(rng, rng.choice(_WIRE) + rng.choice(_WIRE)) for _ in range(n)]
    pool = [_ascii_word(rng) for _ in range(rng.randint(1, 4))] + _non_ascii(rng)
    if mode == "repeats":
        word = rng.choice(pool)
        return [word if rng.random() < 0.6 else _vary(rng, word) for _ in range(n)]
    return [_vary(rng, w) if rng.random() < 0.3 else rng.choice(pool) for w in (rng.choice(pool) for _ in range(n))]


def shrink(x: Any) -> Iterator[Any]:
    return generic_shrink(x)


def validate_input(x: Any) -> str | None:
    why = validate_words(x)
    if why is None:
        i = next((i for i, w in enumerate(x) if any("\ud800" <= c <= "\udfff" for c in w)), None)
        why = None if i is None else f"word {i} holds a lone surrogate (no UTF-8 std::string can)"
    return why


canonicalize = canonical_words


# Taken by const reference in C++: no input_not_mutated relation (the driver reports no argument after the call).
RELATIONS: list[Relation] = [
    idempotence(canon=canonicalize),
    subsequence_of_input(),
    casefold_distinct("ascii_fold_distinct", fold=ascii_fold, under="ASCII case folding"),
    casefolds_kept("ascii_folds_kept", fold=ascii_fold, under="ASCII case folding"),
    prefix_consistency(canon=canonicalize),
    agrees_with_reference(canon=canonicalize),
]
