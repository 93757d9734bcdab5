"""HumanEval/27 flip_case: string is printable ASCII (may be empty; case mapping beyond ASCII is a matter of taste)."""

from loop.oracles import gen

_ALPHABET = "".join(chr(c) for c in range(32, 127))


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    if any(not (32 <= ord(c) < 127) for c in string):
        return "string must be printable ASCII"
    return None


def generate(rng, size):
    return [gen.text(rng, size, rng.choice((gen.LETTERS, gen.LETTERS + " !?.,", _ALPHABET, gen.DIGITS)))]
