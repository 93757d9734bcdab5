"""HumanEval/134 check_if_last_char_is_a_letter: txt is printable ASCII, ' ' the only whitespace, and non-ASCII
characters that are neither letters, whitespace nor combining marks."""

# txt is a str of printable ASCII whose only whitespace is ' ' (letters are a-z, A-Z; words are split on ' ');
# may be empty. Non-ASCII characters other than letters ('é': alphabetical to str.isalpha, not to a-z),
# whitespace ('\xa0': a word separator?) and combining marks (a letter with its accent is one character?).

import unicodedata

import string

from loop.oracles import gen

_PRINTABLE = set(string.printable) - set(string.whitespace) | {" "}


def _plain(c):
    return c in _PRINTABLE or not (c.isascii() or c.isalpha() or c.isspace() or unicodedata.combining(c))



def contract(txt):
    if not isinstance(txt, str):
        return "txt must be a str"
    if not all(map(_plain, txt)):
        return "only printable ASCII (' ' the only whitespace) and non-ASCII characters that are not letters"
    return None


def generate(rng, size):
    alpha = rng.choice((string.ascii_lowercase + "  ", string.ascii_letters + " ",
                        string.ascii_letters + string.digits + "  !.,", "".join(sorted(_PRINTABLE)),
                        string.ascii_letters + "  " + gen.non_ascii(_plain)))
    s = gen.text(rng, size, alpha)
    r = rng.random()
    if r < 0.3:
        s = s + " " + rng.choice(string.ascii_letters)
    elif r < 0.4:
        s = s + " " + rng.choice(string.ascii_letters) + " " * rng.randint(1, 2)
    elif r < 0.5:
        s = rng.choice(string.ascii_letters + "1!")
    elif r < 0.55:
        s = s + rng.choice(("", " ", "  ")) + rng.choice(string.digits + string.punctuation)
    return [s]
