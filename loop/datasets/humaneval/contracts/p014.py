"""HumanEval/14 all_prefixes: string is any str (may be empty: no prefixes)."""

from loop.oracles import gen


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    return None


def generate(rng, size):
    return [gen.text(rng, size, rng.choice((gen.LOWER, gen.LETTERS + gen.DIGITS + " ", "ab")))]
