"""HumanEval/118 get_closest_vowel: word is a non-empty str of ASCII letters where the answer does not depend
on whether y/Y is a vowel (the docstring leaves that open; the tests' "yogurt" and "easy" stay in); the
rightmost vowel (aeiou, either case) with a consonant on both sides, else ""."""

from loop.oracles import gen

_ALLOWED = set(gen.LETTERS)


def _closest(word, vowels):
    for i in range(len(word) - 2, 0, -1):
        if word[i] in vowels and word[i - 1] not in vowels and word[i + 1] not in vowels:
            return word[i]
    return ""


def _ambiguous(word):
    return _closest(word, set("aeiouAEIOU")) != _closest(word, set("aeiouyAEIOUY"))


def contract(word):
    if not isinstance(word, str):
        return "word must be a str"
    if not word or not set(word) <= _ALLOWED:
        return "word must be one or more ASCII letters"
    if _ambiguous(word):
        return "the answer depends on whether y is a vowel"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LETTERS, "aeiouAEIOUbcdBCD", "aEbC", "aeiou", "bcdfg", "aeyYbt"))
    word = gen.text(rng, size, alphabet, 1)
    if _ambiguous(word):
        word = word.replace("y", "z").replace("Y", "Z")
    return [word]
