"""HumanEval/98 count_upper: s is a str of printable ASCII (may be empty); the number of uppercase vowels
(AEIOU) at even indices."""

from loop.oracles import gen

_PRINTABLE = "".join(chr(c) for c in range(32, 127))
_ALLOWED = set(_PRINTABLE)


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not set(s) <= _ALLOWED:
        return "s must be printable ASCII"
    return None


def generate(rng, size):
    return [gen.text(rng, size, rng.choice((gen.LETTERS, "AEIOUaeiouBY", "AEIOU", _PRINTABLE)))]
