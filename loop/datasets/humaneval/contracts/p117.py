"""HumanEval/117 select_words: s is a str of ASCII letters and spaces (may be empty, runs of spaces
allowed), n an int >= 1 ("a natural number"; 0 is left out); the words with exactly n consonants (letters
other than aeiou, either case), in order."""

from loop.oracles import gen

_ALLOWED = set(gen.LETTERS + " ")


def contract(s, n):
    if not isinstance(s, str):
        return "s must be a str"
    if not set(s) <= _ALLOWED:
        return "s must hold only ASCII letters and spaces"
    if type(n) is not int or n < 1:
        return "n must be a natural number (an int >= 1)"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LETTERS, gen.LOWER, "aeiouAEIOUbcyY", "bcdMNT"))
    s = gen.words(rng, size, alphabet)
    if rng.random() < 0.15:
        s = s.replace(" ", "  ")
    if rng.random() < 0.1:
        s = " " + s + " "
    n = rng.randint(1, 4) if rng.random() < 0.8 else gen.integer(rng, size, 1)
    return [s, n]
