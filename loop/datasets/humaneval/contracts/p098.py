"""HumanEval/98 count_upper: s is any str (may be empty); the number of uppercase vowels (AEIOU) at even indices.
Left out as a matter of taste: non-ASCII uppercase letters and letters built on an uppercase vowel ('É', 'ᴬ':
vowels or not?) and combining marks (an index per code point or per letter as shown?)."""

import unicodedata

from loop.oracles import gen

_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def _plain(c):
    return c.isascii() or not (c.isupper() or unicodedata.combining(c)
                               or set(unicodedata.normalize("NFKD", c)) & set("AEIOU"))


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not all(map(_plain, s)):
        return "a non-ASCII uppercase letter or combining mark (an uppercase vowel?)"
    return None


def generate(rng, size):
    return [gen.text(rng, size, rng.choice((gen.LETTERS, "AEIOUaeiouBY", "AEIOU", _PRINTABLE, "AEIOUbc" + gen.non_ascii(_plain))))]
