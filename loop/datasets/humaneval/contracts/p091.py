"""HumanEval/91 is_bored: S is a str of ASCII letters, spaces and the delimiters '.', '?', '!' (may be
empty; whether "I," or "I2" starts with the word "I" is open, so no other characters); the number of sentences (text between delimiters) whose first space-separated word is "I"."""

from loop.oracles import gen

_ALLOWED = set(gen.LETTERS + " .?!")
_VOCAB = ("I", "I", "I", "It", "Is", "In", "i", "II", "Ice", "the", "sky", "love", "You", "am", "a", "bored")


def contract(S):
    if not isinstance(S, str):
        return "S must be a str"
    if not set(S) <= _ALLOWED:
        return "S must hold only ASCII letters, spaces and . ? !"
    return None


def _word(rng):
    return rng.choice(_VOCAB) if rng.random() < 0.8 else gen.text(rng, 1, gen.LETTERS, 1, 6)


def generate(rng, size):
    if rng.random() < 0.1:
        return [gen.text(rng, size, "I .?!a")]
    out = [" " * rng.choice((0, 0, 0, 0, 1, 2))]
    for _ in range(gen.length(rng, size, 0, max(1, size))):
        words = [_word(rng) for _ in range(rng.choice((0, 1, 1, 2, 3, 4, 6)))]
        out.append((" " * rng.choice((1, 1, 1, 1, 2))).join(words))
        out.append(rng.choice((" ", "", "")) if rng.random() < 0.1 else "")
        out.append(rng.choice(".?!") * rng.choice((1, 1, 1, 1, 2, 3)) if rng.random() < 0.85 else "")
        out.append(" " * rng.choice((0, 1, 1, 1, 2)))
    return ["".join(out)]


CANONICAL = """\
    # is_bored("I"), is_bored("You. I!"), is_bored("  I am"): "A boredom is a sentence that starts with the
    # word "I"": a sentence that is the word "I" alone, or has spaces before it, starts with the word "I";
    # the canonical only counts sentences whose first two characters are "I ".
    import re
    return sum(1 for sentence in re.split(r'[.?!]', S) if sentence.split()[:1] == ['I'])
"""
FIXES = [(("I",), 1), (("You. I!",), 1), (("  I am bored",), 1), (("I. I? I love it!",), 3)]
