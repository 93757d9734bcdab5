"""HumanEval/125 split_words: txt is printable ASCII, ASCII whitespace and non-ASCII characters that are neither
letters nor whitespace, with single, inner separators."""

# txt is a str of printable ASCII and the whitespace of string.whitespace (' ', '\t', '\n', '\r', '\x0b', '\x0c');
# non-ASCII characters too ('€', '½', an emoji), but not non-ASCII whitespace ('\xa0': whitespace to str.split,
# is it to the docstring?) nor letters ('é' is lower-case: what is its order in the alphabet?);
# with whitespace, words separated by single whitespace characters (no leading/trailing one); else with a
# comma, parts separated by single commas (none empty); else any such text (may be empty). Runs of separators
# are left out: what an empty word between two of them is, is a matter of taste.

import re
import string

from loop.oracles import gen

_ALLOWED = set(string.printable)


def _plain(c):
    return c in _ALLOWED or not (c.isascii() or c.isalpha() or c.isspace())

_WHITESPACE = re.compile(r"[ \t\n\r\x0b\x0c]")
_WORD = string.ascii_letters + string.digits + "!?.'-;:"
_WIDE = gen.non_ascii(_plain)

CANONICAL = """\
    # split_words("Hello\\tworld!"): "return a list of words split on whitespace, if no whitespaces exists in the
    # text you should split on commas"; a tab is whitespace, and the canonical solution, looking for ' ' only,
    # counts letters instead.
    if any(c.isspace() for c in txt):
        return txt.split()
    elif "," in txt:
        return txt.replace(",", " ").split()
    else:
        return len([i for i in txt if i.islower() and ord(i) % 2 == 0])
"""
FIXES = [(("Hello\tworld!",), ["Hello", "world!"]), (("a\nb,c",), ["a", "b,c"])]


def contract(txt):
    if not isinstance(txt, str):
        return "txt must be a str"
    if not all(map(_plain, txt)):
        return "only printable ASCII, ASCII whitespace and non-ASCII characters other than letters and whitespace"
    if _WHITESPACE.search(txt):
        if any(w == "" for w in _WHITESPACE.split(txt)):
            return "words are separated by single whitespace characters, none leading or trailing"
    elif "," in txt:
        if any(w == "" for w in txt.split(",")):
            return "parts are separated by single commas, none empty"
    return None


def _word(rng, alphabet, hi=10):
    return gen.text(rng, 1, alphabet, 1, rng.randint(1, hi))


def generate(rng, size):
    r = rng.random()
    n = gen.length(rng, size, 1)
    if r < 0.35:  # whitespace separated (words may hold commas); mostly spaces
        alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD, _WORD + ",", "ab," + _WIDE))
        seps = rng.choice((" ", " ", " \t", string.whitespace))
        words = [_word(rng, alpha) for _ in range(max(2, n))]
        return ["".join(w + rng.choice(seps) for w in words[:-1]) + words[-1]]
    if r < 0.65:  # comma separated, no whitespace
        alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD))
        return [",".join(_word(rng, alpha) for _ in range(max(2, n)))]
    # neither: count letters
    alpha = rng.choice((string.ascii_lowercase, string.ascii_letters, _WORD, "abcdef", "bdfhjlnprtvxz", "abc" + _WIDE))
    return [gen.text(rng, size, alpha)]
