"""Words under str.casefold(): trap tables (ß/ss, ﬁ/fi, σ/ς, İ, ...), look-alikes that must stay apart,
random case spellings, and the relations a casefold dedupe must keep.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from typing import Any

from loop.oracles.engine import Context, Relation, catches_malformed, output_str_list, short

# --------------------------------------------------------------------------- strings

# Words in one group are equal under str.casefold(); in most groups str.lower() tells some of them apart.
CASEFOLD_TRAPS: tuple[tuple[str, ...], ...] = (
    ("ß", "ss", "SS", "ẞ", "Ss"),
    ("straße", "STRASSE", "Strasse", "strasse"),
    ("ﬁ", "fi", "FI", "Fi"),
    ("ﬁle", "FILE", "file"),
    ("ς", "σ", "Σ"),
    ("οδος", "ΟΔΟΣ", "οδοσ"),
    ("µ", "μ", "Μ"),
    ("ſ", "s", "S"),
    ("\u212a", "k", "K"),
    ("ǆ", "ǅ", "Ǆ"),
    ("İ", "i\u0307"),
    ("ŉ", "ʼn", "ʼN"),
    ("Å", "\u212b", "å"),
    ("жук", "Жук", "ЖУК"),
)
# Words that look alike but differ under casefold: a wrong normalization (upper, NFC, accents) merges them.
CASEFOLD_DISTRACTORS: tuple[tuple[str, ...], ...] = (
    ("ı", "i", "I"),
    ("é", "e\u0301", "É", "e"),
    ("ä", "Ä", "a"),
    ("", " ", "a"),
)


def vary_case(rng: random.Random, word: str) -> str:
    """A random case spelling of word (may leave its casefold class for letters like 'ı')."""
    r = rng.randrange(7)
    if r == 0:
        return word
    if r == 1:
        return word.upper()
    if r == 2:
        return word.lower()
    if r == 3:
        return word.title()
    if r == 4:
        return word.swapcase()
    if r == 5:
        return word.casefold()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)



def validate_words(x: Any) -> str | None:
    """A word list's input contract: a list of strings."""
    if not isinstance(x, list):
        return "input is not a list"
    for i, w in enumerate(x):
        if not isinstance(w, str):
            return f"word {i} is not a string"
    return None


def canonical_words(output: Any) -> list[str]:
    """A word list as is (order matters); ValueError unless it is a list of strings."""
    if not isinstance(output, (list, tuple)):
        raise ValueError("output is not a list")
    for i, w in enumerate(output):
        if not isinstance(w, str):
            raise ValueError(f"output word {i} is not a string")
    return list(output)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def ascii_fold(word: str) -> str:
    """Lower case for A-Z only, as C's tolower() in the C locale does byte by byte: "Ä" stays "Ä"."""
    return word.translate(_ASCII_LOWER)


def casefold_distinct(name: str = "casefold_distinct", fold: Callable[[str], str] = str.casefold,
                      under: str = "casefold") -> Relation:
    """No two output words are equal under `fold` (str.casefold() unless a task folds otherwise)."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        seen: dict[str, int] = {}
        out = output_str_list(ctx.call(x).value)
        for i, w in enumerate(out):
            j = seen.setdefault(fold(w), i)
            if j != i:
                return f"output words {j} {short(out[j], 40)} and {i} {short(w, 40)} are equal under {under}"
        return None

    return Relation(name, check)


def casefolds_kept(name: str = "casefolds_kept", fold: Callable[[str], str] = str.casefold,
                   under: str = "casefold") -> Relation:
    """The output has exactly the input's classes under `fold`: none lost, none invented."""

    @catches_malformed
    def check(x: Any, ctx: Context) -> str | None:
        out = output_str_list(ctx.call(x).value)
        got = {fold(w) for w in out}
        want = {fold(w) for w in x}
        for w in x:
            if fold(w) not in got:
                return f"input word {short(w, 40)} has no {under} match in the output"
        for w in out:
            if fold(w) not in want:
                return f"output word {short(w, 40)} matches no input word under {under}"
        return None

    return Relation(name, check)
