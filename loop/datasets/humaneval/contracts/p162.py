"""HumanEval/162 string_to_md5: text is a str of ASCII characters (the encoding is unstated; may be empty)."""

import string

from loop.oracles import gen


def contract(text):
    if not isinstance(text, str):
        return "text must be a str"
    # kept ASCII: the md5 of a str needs an encoding the docstring does not name (UTF-8? Latin-1?), and the
    # canonical solution encodes as ASCII, raising on anything else
    if not text.isascii():
        return "only ASCII text (the encoding is unstated)"
    return None


def generate(rng, size):
    alpha = rng.choice((string.ascii_letters + " ", string.printable, "".join(map(chr, range(128)))))
    return [gen.text(rng, size, alpha)]
