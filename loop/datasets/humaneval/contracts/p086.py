"""HumanEval/86 anti_shuffle: s is a str of printable ASCII (space included, no other whitespace; may be
empty, runs of spaces allowed); each space-separated word has its characters sorted by ASCII value."""

# Kept ASCII: the docstring orders by "ascii value", which a non-ASCII character has none of (by code point? by
# its ASCII transliteration?), and a tab or '\xa0' in a word may or may not separate it (a matter of taste).

from loop.oracles import gen

_PRINTABLE = "".join(chr(c) for c in range(32, 127))
_ALLOWED = set(_PRINTABLE)


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not set(s) <= _ALLOWED:
        return "s must be printable ASCII (space is the only whitespace)"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        return [gen.words(rng, size, rng.choice((gen.LETTERS, gen.LETTERS + "!?.,", _PRINTABLE[1:])))]
    if r < 0.8:
        parts = [gen.text(rng, 1, gen.LETTERS + "!.", 0, rng.randint(0, 8)) for _ in range(gen.length(rng, size))]
        return [" ".join(parts)]
    return [gen.text(rng, size, rng.choice((_PRINTABLE, "ba ", " ")))]
