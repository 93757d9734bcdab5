"""HumanEval/16 count_distinct_characters: string is printable ASCII (letters, digits, punctuation, space); may be empty (case folding beyond ASCII is a matter of taste)."""

from loop.oracles import gen

_ALPHABET = "".join(chr(c) for c in range(32, 127))


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    if any(not (32 <= ord(c) < 127) for c in string):
        return "string must be printable ASCII"
    return None


def generate(rng, size):
    alphabet = rng.choice(("aAbB", gen.LETTERS, "xyzXYZ ", _ALPHABET))
    return [gen.text(rng, size, alphabet)]
