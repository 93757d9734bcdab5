"""HumanEval/44 change_base: x is a non-negative int, base an int in 2..9 ("base numbers are less than 10")."""

from loop.oracles import gen


def contract(x, base):
    """None when the docstring allows these arguments, else a short reason."""
    if type(x) is not int or type(base) is not int:
        return "x and base must be int"
    if x < 0:
        return "x must be non-negative"
    if not 2 <= base <= 9:
        return "base must be 2..9"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.integer(rng, size, lo=0), rng.randint(2, 9)]


CANONICAL = """\
    # change_base(0, 2): "return string representation after the conversion"; 0 is written "0" in any
    # base, the canonical returns the empty string.
    if x == 0:
        return "0"
    ret = ""
    while x > 0:
        ret = str(x % base) + ret
        x //= base
    return ret
"""
FIXES = [((0, 2), "0"), ((0, 9), "0")]
