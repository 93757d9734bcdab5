"""HumanEval/101 words_string: s is a str of words of ASCII letters separated by commas and spaces (any
runs, leading or trailing; may be empty; whether '-' or '.' split words is open); the words in order."""

from loop.oracles import gen

_ALLOWED = set(gen.LETTERS + " ,")


def contract(s):
    if not isinstance(s, str):
        return "s must be a str"
    if not set(s) <= _ALLOWED:
        return "s must hold only ASCII letters, spaces and commas"
    return None


def generate(rng, size):
    if rng.random() < 0.15:
        return [gen.text(rng, size, "ab ,")]
    words = [gen.text(rng, 1, rng.choice((gen.LETTERS, gen.LOWER)), 1, 8)
             for _ in range(gen.length(rng, size))]
    seps = (", ", " ", ",", ",,", "  ", " , ", "     , ")
    out = rng.choice(("", "", "", " ", ","))
    for i, w in enumerate(words):
        if i:
            out += rng.choice(seps[:2]) if rng.random() < 0.7 else rng.choice(seps)
        out += w
    out += rng.choice(("", "", "", " ", ",", ", "))
    return [out]
