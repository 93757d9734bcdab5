"""HumanEval/153 Strongest_Extension: class_name is printable ASCII and non-ASCII non-letters; extensions a non-empty list of such words (an extension's name is not empty)."""

# class_name is a str of printable ASCII, extensions a non-empty list of non-empty str of printable ASCII
# (duplicates allowed); ties go to the first. Non-ASCII characters other than letters and whitespace too ('€',
# '½', an emoji); a non-ASCII letter is left out: is 'É' one of CAP, and is '中' (no case) one of either?

import unicodedata

import string

from loop.oracles import gen

_PRINTABLE = set(string.printable) - set(string.whitespace)
_EXT = string.ascii_letters + string.digits + "_-."


def _plain(c):
    return c in _PRINTABLE or not (c.isascii() or c.isalpha() or c.isspace() or unicodedata.combining(c))


_WIDE = gen.non_ascii(_plain)


def contract(class_name, extensions):
    if not isinstance(class_name, str) or not all(map(_plain, class_name)):
        return "class_name must be a str of printable ASCII and non-ASCII non-letters"
    if not isinstance(extensions, list) or not extensions:
        return "extensions must be a non-empty list"
    for e in extensions:
        if not isinstance(e, str) or not e or not all(map(_plain, e)):
            return "each extension must be a non-empty str of printable ASCII and non-ASCII non-letters"
    return None


def generate(rng, size):
    name = gen.text(rng, size, rng.choice((string.ascii_letters, _EXT)), 1)
    n = gen.length(rng, size, 1)
    exts = []
    for _ in range(n):
        if exts and rng.random() < 0.15:
            exts.append(rng.choice(exts))
        else:
            alpha = rng.choice(("aA", "abAB", string.ascii_letters, _EXT, string.digits + "_-", "aB" + _WIDE))
            exts.append(gen.text(rng, size, alpha, 1, rng.choice((4, 12, 3 * size))))
    return [name, exts]
