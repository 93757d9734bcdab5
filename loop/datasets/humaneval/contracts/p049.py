"""HumanEval/49 modp: n is a non-negative int, p a positive int (2^n modulo p)."""

from loop.oracles import gen


def contract(n, p):
    """None when the docstring allows these arguments, else a short reason."""
    if type(n) is not int or type(p) is not int:
        return "n and p must be int"
    if n < 0:
        return "n must be non-negative"
    if p < 1:
        return "p must be positive"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    p = gen.pick(rng, lambda: rng.randint(1, 12), lambda: rng.choice((1, 2, 101, 10 ** 9 + 7)),
                 lambda: gen.integer(rng, size, lo=1))
    return [gen.integer(rng, size, lo=0), p]


CANONICAL = """\
    # modp(0, 1): "Return 2^n modulo p"; 2^0 = 1 and 1 modulo 1 is 0, the canonical returns 1. Its loop
    # of n steps also never ends on large n ("be aware of numerics").
    return pow(2, n, p)
"""
FIXES = [((0, 1), 0), ((10 ** 12, 101), pow(2, 10 ** 12, 101))]
