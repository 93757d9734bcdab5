"""HumanEval/161 solve: s is a str of printable ASCII (letters are a-z, A-Z; may be empty)."""

import string

from loop.oracles import gen


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not all(c in string.printable for c in s):
        return "only printable ASCII (letters a-z, A-Z)"
    return None


def generate(rng, size):
    alpha = rng.choice((string.ascii_letters, string.digits + "#@$^!", string.digits, string.printable,
                        string.ascii_lowercase + "123 #", string.punctuation + " "))
    return [gen.text(rng, size, alpha)]
