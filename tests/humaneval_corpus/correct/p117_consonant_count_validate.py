# HumanEval/117: consonants counted as letters minus vowels per word; ValueError on characters other than letters and spaces or negative n
_VOWELS = frozenset('aeiouAEIOU')


def select_words(s, n):
    if type(n) is not int or n < 0:
        raise ValueError("n must be a natural number")
    if any(not (ch == ' ' or ch.isalpha()) for ch in s):
        raise ValueError("s may contain only letters and spaces")
    out = []
    for word in s.split():
        consonants = sum(1 for ch in word if ch not in _VOWELS)
        if consonants == n:
            out.append(word)
    return out
