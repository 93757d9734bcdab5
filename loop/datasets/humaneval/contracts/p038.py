"""HumanEval/38 decode_cyclic: s is any str (encode_cyclic is a bijection on str, so every str is some string's encoding); may be empty."""

from loop.oracles import gen


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LOWER, "abc", gen.LETTERS + gen.DIGITS + " .,!", "aé中"))
    return [gen.text(rng, size, alphabet)]
