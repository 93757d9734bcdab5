"""HumanEval/7 filter_by_substring: strings is a list of str (may be empty), substring a str (may be empty)."""

from loop.oracles import gen


def contract(strings, substring):
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        return "strings must be a list of str"
    if not isinstance(substring, str):
        return "substring must be a str"
    return None


def generate(rng, size):
    alphabet = rng.choice(("ab", "abc", gen.LOWER, gen.LETTERS + " "))
    n = gen.length(rng, size)
    strings = [gen.text(rng, max(1, size // 3), alphabet) for _ in range(n)]
    r = rng.random()
    if strings and r < 0.4:
        s = rng.choice(strings)
        i = rng.randint(0, len(s))
        sub = s[i:i + rng.randint(0, 4)]
    elif r < 0.5:
        sub = ""
    else:
        sub = gen.text(rng, 1, alphabet, 1, 4)
    if strings and rng.random() < 0.1:
        strings.append(strings[0])
    return [strings, sub]
