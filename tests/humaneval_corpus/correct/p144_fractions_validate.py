# HumanEval/144: fractions.Fraction product and denominator test; ValueError on malformed or non-positive fractions
import re
from fractions import Fraction

_FRACTION = re.compile(r'([0-9]+)/([0-9]+)')


def _parse(text):
    m = _FRACTION.fullmatch(text)
    if not m:
        raise ValueError("not a fraction <numerator>/<denominator>: %r" % text)
    num, den = int(m.group(1)), int(m.group(2))
    if num <= 0 or den <= 0:
        raise ValueError("numerator and denominator must be positive: %r" % text)
    return Fraction(num, den)


def simplify(x, n):
    return (_parse(x) * _parse(n)).denominator == 1
