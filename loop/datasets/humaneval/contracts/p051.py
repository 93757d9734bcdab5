"""HumanEval/51 remove_vowels: text is any str (may be empty) but for the characters whose vowelhood is a matter
of taste: a non-ASCII letter built on a vowel ('é', 'Ö', 'ａ': its NFKD form holds one) and a combining mark
(is 'e' and a combining accent one vowel, or a vowel and a consonant?)."""

import string
import unicodedata

from loop.oracles import gen


def _plain(c):
    if c.isascii():
        return True
    return not unicodedata.combining(c) and not set(unicodedata.normalize("NFKD", c)) & set("aeiouAEIOU")


def contract(text):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(text, str):
        return "text must be a str"
    if not all(map(_plain, text)):
        return "a non-ASCII vowel-like letter or a combining mark (is it a vowel?)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, string.printable, gen.LETTERS + "\n ", "aeiouAEIOUyYbc", "aeiouAEIOU" + gen.non_ascii(_plain))
    return [gen.text(rng, size, alphabet)]
