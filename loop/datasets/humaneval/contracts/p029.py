"""HumanEval/29 filter_by_prefix: strings is a list of str (may be empty), prefix a str (may be empty)."""

from loop.oracles import gen


def contract(strings, prefix):
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        return "strings must be a list of str"
    if not isinstance(prefix, str):
        return "prefix must be a str"
    return None


def generate(rng, size):
    alphabet = rng.choice(("ab", "abc", gen.LOWER, gen.LETTERS))
    strings = [gen.text(rng, max(1, size // 3), alphabet) for _ in range(gen.length(rng, size))]
    r = rng.random()
    if strings and r < 0.4:
        s = rng.choice(strings)
        prefix = s[: rng.randint(0, len(s))]
    elif r < 0.5:
        prefix = ""
    elif strings and r < 0.55:
        prefix = rng.choice(strings) + rng.choice(alphabet)
    else:
        prefix = gen.text(rng, 1, alphabet, 1, 3)
    return [strings, prefix]
