"""HumanEval/99 closest_integer: value is a decimal numeral str, -?D(.D+)? with D an integer part without
leading zeros (as in the examples; '.5' and '14.' are Python's float syntax, not the docstring's), and at most 15 significant digits in all (so a float reads it exactly enough; longer numerals
would fault every float-based answer, the canonical's included); the nearest int, halves away from zero."""

import re

from loop.oracles import gen

_NUMERAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")


def contract(value):
    if not isinstance(value, str):
        return "value must be a str"
    if not _NUMERAL.fullmatch(value):
        return "value must be a decimal numeral like -12.5 (no exponent, no leading zeros, no '+')"
    digits = value.lstrip("-").replace(".", "").lstrip("0")
    if len(digits) > 15:
        return "at most 15 significant digits"
    return None


def generate(rng, size):
    sign = "-" if rng.random() < 0.4 else ""
    if rng.random() < 0.5:
        whole = str(rng.randint(0, 20))
    else:
        whole = str(gen.integer(rng, min(size, 20), 0, 10 ** 12))
    room = 15 - (len(whole) if whole != "0" else 0)
    k = rng.random()
    if k < 0.25 or room <= 0:
        frac = ""
    elif k < 0.55:  # exactly a half, maybe with trailing zeros
        frac = ".5" + "0" * rng.randint(0, min(3, room - 1))
    else:
        n = rng.randint(1, min(room, 4 + size // 4))
        frac = "." + "".join(rng.choice("0123456789") for _ in range(n - 1)) + rng.choice("0123456789459")
    return [sign + whole + frac]
