"""HumanEval/76 is_simple_power: x and n are positive ints (x is a simple power of n when n**k == x for some
int k >= 0; 1 is n**0). For n <= 0 or x <= 0 "n**int" is open: a negative int k makes 4**-1 == 0.25, and
0**0 is a matter of taste."""

from loop.oracles import gen


def contract(x, n):
    """None when the docstring allows these arguments, else a short reason."""
    if type(x) is not int or type(n) is not int:
        return "x and n must be int"
    if x < 1 or n < 1:
        return "x and n must be positive"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    n = gen.pick(rng, lambda: rng.randint(1, 12), lambda: gen.integer(rng, size, lo=1))
    r = rng.random()
    if r < 0.5 and n > 1:
        x = n ** rng.randint(0, max(1, 4 * size // max(1, n.bit_length())))
        x += gen.pick(rng, 0, 0, 1, -1) if x > 1 else 0
    elif r < 0.6:
        x = 1
    else:
        x = gen.integer(rng, size, lo=1)
    return [x, n]
