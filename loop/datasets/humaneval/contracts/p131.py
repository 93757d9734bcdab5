"""HumanEval/131 digits: n is a positive int."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.2:  # all even digits, or with a few odd ones
        k = gen.length(rng, size, 1)
        s = rng.choice("2468") + "".join(rng.choice("02468") for _ in range(k - 1))
        if rng.random() < 0.4:
            i = rng.randrange(len(s))
            s = s[:i] + rng.choice("13579") + s[i + 1:]
        return [int(s)]
    if r < 0.3:
        return [int("".join(rng.choice("0123456789") for _ in range(gen.length(rng, size, 1))).lstrip("0") or "1")]
    return [gen.integer(rng, size, 1)]
