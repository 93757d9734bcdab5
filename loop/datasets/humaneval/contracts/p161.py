"""HumanEval/161 solve: s is a str of printable ASCII (letters are a-z, A-Z; may be empty) and non-ASCII
characters other than letters and combining marks ('€', '½', an emoji): is 'é' a letter to reverse the case of,
or '中' (no case), and does a reversed string keep an accent on its letter? Matters of taste."""

import string
import unicodedata

from loop.oracles import gen


def _plain(c):
    return c in string.printable or not (c.isascii() or c.isalpha() or unicodedata.combining(c))


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not all(map(_plain, s)):
        return "only printable ASCII (letters a-z, A-Z) and non-ASCII non-letters"
    return None


def generate(rng, size):
    alpha = rng.choice((string.ascii_letters, string.digits + "#@$^!", string.digits, string.printable,
                        string.ascii_lowercase + "123 #", string.punctuation + " ",
                        "aB1" + gen.non_ascii(_plain), "12" + gen.non_ascii(_plain)))
    return [gen.text(rng, size, alpha)]
