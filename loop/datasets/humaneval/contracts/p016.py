"""HumanEval/16 count_distinct_characters: string is any str (may be empty) whose count of distinct characters
regardless of case is the same however case is ignored (lower, upper or casefold, of the string or of each
character): 'ß', 'ﬁ', 'İ' or a final sigma, which those readings count differently, are left out."""

from loop.oracles import gen

_ALPHABET = "".join(chr(c) for c in range(32, 127))


def _readings(string):
    yield len(set(string.lower()))
    yield len(set(string.upper()))
    yield len(set(string.casefold()))
    yield len({c.lower() for c in string})
    yield len({c.upper() for c in string})
    yield len({c.casefold() for c in string})


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    if len(set(_readings(string))) > 1:
        return "its count depends on how case is ignored ('ß', 'ﬁ', a final sigma)"
    return None


_WIDE = gen.non_ascii(lambda c: contract(c + c.upper() + c.lower()) is None)


def generate(rng, size):
    alphabet = rng.choice(("aAbB", gen.LETTERS, "xyzXYZ ", _ALPHABET, "aAeE" + _WIDE))
    return [gen.text(rng, size, alphabet)]
