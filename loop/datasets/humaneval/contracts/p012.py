"""HumanEval/12 longest: strings is a list of str (may be empty)."""

from loop.oracles import gen


def contract(strings):
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        return "strings must be a list of str"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    r = rng.random()
    if r < 0.4:
        strings = [gen.text(rng, 1, gen.LOWER, 0, rng.randint(0, 4)) for _ in range(n)]  # many ties
    else:
        strings = [gen.text(rng, size, gen.LETTERS) for _ in range(n)]
    return [strings]
