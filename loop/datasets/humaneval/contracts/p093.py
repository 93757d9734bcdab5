"""HumanEval/93 encode: message is a str of ASCII letters and spaces (may be empty); the case of every letter
swapped and each vowel (aeiou, either case) replaced by the letter two places after it."""

from loop.oracles import gen

_ALLOWED = set(gen.LETTERS + " ")


def contract(message):
    if not isinstance(message, str):
        return "message must be a str"
    if not set(message) <= _ALLOWED:
        return "message must hold only ASCII letters and spaces"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.6:
        return [gen.words(rng, size, rng.choice((gen.LETTERS, gen.LOWER, gen.UPPER, gen.VOWELS + "yYbz")))]
    return [gen.text(rng, size, rng.choice((gen.LETTERS + " ", gen.VOWELS, "aeiouAEIOU ")))]
