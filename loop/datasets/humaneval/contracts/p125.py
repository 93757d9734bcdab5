"""HumanEval/125 split_words: txt is printable ASCII (' ' the only whitespace) with single, inner separators."""

# txt is a str of printable ASCII whose only whitespace is ' '; with a space, words separated by single spaces
# (no leading/trailing space); else with a comma, parts separated by single commas (none empty); else any such
# text (may be empty).

import string

from loop.oracles import gen

_PRINTABLE = set(string.printable) - set(string.whitespace) | {" "}
_WORD = string.ascii_letters + string.digits + "!?.'-;:"


def contract(txt):
    if not isinstance(txt, str):
        return "txt must be a str"
    if not set(txt) <= _PRINTABLE:
        return "only printable ASCII, and ' ' as the only whitespace"
    if " " in txt:
        if any(w == "" for w in txt.split(" ")):
            return "words are separated by single spaces, none leading or trailing"
    elif "," in txt:
        if any(w == "" for w in txt.split(",")):
            return "parts are separated by single commas, none empty"
    return None


def _word(rng, alphabet, hi=10):
    return gen.text(rng, 1, alphabet, 1, rng.randint(1, hi))


def generate(rng, size):
    r = rng.random()
    n = gen.length(rng, size, 1)
    if r < 0.35:  # space separated (words may hold commas)
        alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD, _WORD + ","))
        return [" ".join(_word(rng, alpha) for _ in range(max(2, n)))]
    if r < 0.65:  # comma separated, no space
        alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD))
        return [",".join(_word(rng, alpha) for _ in range(max(2, n)))]
    # neither: count letters
    alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD, "abcdef", "bdfhjlnprtvxz"))
    return [gen.text(rng, size, alpha)]
