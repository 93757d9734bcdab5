# HumanEval/118: scan interior positions right to left checking both neighbours; ValueError on non-English-letter input
import string

_VOWELS = frozenset('aeiouAEIOU')
_LETTERS = frozenset(string.ascii_letters)


def get_closest_vowel(word):
    if any(ch not in _LETTERS for ch in word):
        raise ValueError("word must contain English letters only")
    for i in range(len(word) - 2, 0, -1):
        if word[i] in _VOWELS and word[i - 1] not in _VOWELS and word[i + 1] not in _VOWELS:
            return word[i]
    return ""
