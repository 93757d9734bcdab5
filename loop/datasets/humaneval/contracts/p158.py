"""HumanEval/158 find_max: words is a non-empty list of non-empty lowercase ASCII words ("different words"; lexicographic order across cases is taste)."""

# words is a non-empty list of non-empty lowercase ASCII words (repeats allowed, as in the tests); ties on
# unique characters go to the lexicographically first.

import string

from loop.oracles import gen


def contract(words):
    if not isinstance(words, list) or not words:
        return "words must be a non-empty list"
    for w in words:
        if not isinstance(w, str) or not w or not all(c in string.ascii_lowercase for c in w):
            return "each word must be a non-empty str of lowercase letters"
    return None


def generate(rng, size):
    n = gen.length(rng, size, 1)
    alpha = rng.choice(("abc", "abcdef", string.ascii_lowercase))
    out = []
    for _ in range(n):
        if out and rng.random() < 0.2:
            w = list(rng.choice(out))
            rng.shuffle(w)
            out.append("".join(w))
        else:
            out.append(gen.text(rng, size, alpha, 1, rng.choice((4, 8, 3 * size))))
    return [out]
