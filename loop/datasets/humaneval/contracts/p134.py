"""HumanEval/134 check_if_last_char_is_a_letter: txt is printable ASCII, ' ' the only whitespace."""

# txt is a str of printable ASCII whose only whitespace is ' ' (letters are a-z, A-Z; words are split on ' ');
# may be empty.

import string

from loop.oracles import gen

_PRINTABLE = set(string.printable) - set(string.whitespace) | {" "}


def contract(txt):
    if not isinstance(txt, str):
        return "txt must be a str"
    if not set(txt) <= _PRINTABLE:
        return "only printable ASCII, and ' ' as the only whitespace"
    return None


def generate(rng, size):
    alpha = rng.choice((string.ascii_lowercase + "  ", string.ascii_letters + " ",
                        string.ascii_letters + string.digits + "  !.,", "".join(sorted(_PRINTABLE))))
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
