"""HumanEval/89 encrypt: s is a str of lowercase ASCII letters (may be empty); each letter shifted 4 places,
wrapping around ("the alphabet being rotated": what becomes of other characters is not said)."""

from loop.oracles import gen

_LOWER = set(gen.LOWER)


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not set(s) <= _LOWER:
        return "s must be lowercase ASCII letters only"
    return None


def generate(rng, size):
    return [gen.text(rng, size, rng.choice((gen.LOWER, "vwxyzab")))]
