"""HumanEval/140 fix_spaces: text is a str whose only whitespace is ' ' (may be empty): any other character,
non-ASCII included; a tab or a '\xa0' (are they spaces?) is left out."""

import string

from loop.oracles import gen

_PRINTABLE = set(string.printable) - set(string.whitespace) | {" "}


def _plain(c):
    return c in _PRINTABLE or not (c.isascii() or c.isspace())


_WIDE = gen.non_ascii(_plain)


def contract(text):
    if not isinstance(text, str):
        return "text must be a str"
    if not all(map(_plain, text)):
        return "' ' is the only whitespace (and no ASCII control character)"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    parts = []
    for _ in range(n):
        if rng.random() < 0.5:
            parts.append(" " * rng.choice((1, 1, 2, 2, 3, 4, rng.randint(1, 10))))
        else:
            alpha = rng.choice((string.ascii_letters, string.ascii_letters + string.digits + "_-", "ab" + _WIDE))
            parts.append(gen.text(rng, 1, alpha, 1, rng.randint(1, 8)))
    s = "".join(parts)
    if rng.random() < 0.2:
        s = " " * rng.randint(0, 4) + s + " " * rng.randint(1, 4)
    return [s]


CANONICAL = """\
    # fix_spaces("a  "): "replace all spaces in it with underscores" (two consecutive spaces become
    # "__", as the test "Yellow  Dirty" -> "Yellow__Dirty" shows); the canonical turns two trailing spaces
    # into a single "_".
    import re
    return re.sub(r" {3,}", "-", text).replace(" ", "_")
"""
FIXES = [(("a  ",), "a__"), (("Example  ",), "Example__"), (("  ",), "__")]
