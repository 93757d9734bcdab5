"""HumanEval/27 flip_case: string is any str (may be empty) that flips one way however the docstring is read (titlecase letters such as 'ǅ', and a capital sigma that str.swapcase makes a final 'ς', are left out)."""

# The readings: str.swapcase of the whole string (final sigma in context); character by character, upper if
# lower else lower; lower if upper else upper; upper if lower, lower if upper, else unchanged. They agree on
# every ASCII and most non-ASCII text ('é' -> 'É', 'ß' -> 'SS', 'ς' -> 'Σ'); where they disagree, the flip is
# a matter of taste.

from loop.oracles import gen

_ALPHABET = "".join(chr(c) for c in range(32, 127))
_WIDE = "éÉñÑσςжЖöÖçÇßÿµ中 1!"  # no capital sigma: swapcase makes it final in context


def _readings(string):
    yield string.swapcase()
    yield "".join(c.upper() if c.islower() else c.lower() for c in string)
    yield "".join(c.lower() if c.isupper() else c.upper() for c in string)
    yield "".join(c.upper() if c.islower() else c.lower() if c.isupper() else c for c in string)


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    if len(set(_readings(string))) > 1:
        return "its case flip depends on the reading (a titlecase letter, a final sigma)"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LETTERS, gen.LETTERS + " !?.,", _ALPHABET, gen.DIGITS, gen.LETTERS + _WIDE))
    return [gen.text(rng, size, alphabet)]
