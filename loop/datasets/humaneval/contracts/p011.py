"""HumanEval/11 string_xor: a and b are strings over '0' and '1' of the same length (may both be empty: their XOR is '')."""

from loop.oracles import gen


def contract(a, b):
    if not isinstance(a, str) or not isinstance(b, str):
        return "a and b must be str"
    if set(a) - {"0", "1"} or set(b) - {"0", "1"}:
        return "a and b may hold only 0s and 1s"
    if len(a) != len(b):
        return "a and b must have the same length"
    return None


def generate(rng, size):
    n = 0 if rng.random() < 0.03 else gen.length(rng, size, 1)
    a = gen.text(rng, size, "01", n, n)
    r = rng.random()
    if r < 0.1:
        b = a
    elif r < 0.2:
        b = "".join("1" if c == "0" else "0" for c in a)
    else:
        b = gen.text(rng, size, "01", n, n)
    return [a, b]
