"""HumanEval/82 prime_length: string is any str (may be empty); True exactly when len(string) is prime."""

from loop.oracles import gen

_PRINTABLE = "".join(chr(c) for c in range(32, 127))


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.2:
        n = rng.choice((0, 1, 2, 3, 4, 5, 9, 25, 49, 97, 101, 121, 127, 169, 211, 221, 289, 323, 331, 841))
    elif r < 0.3:
        n = rng.randint(0, 40 * size)
    else:
        return [gen.text(rng, size, rng.choice((gen.LETTERS, _PRINTABLE, "ab")))]
    return ["".join(rng.choice(gen.LETTERS) for _ in range(n))]
