"""HumanEval/18 how_many_times: string is any str (may be empty), substring a non-empty str (an empty substring's count is a matter of taste)."""

from loop.oracles import gen


def contract(string, substring):
    if not isinstance(string, str) or not isinstance(substring, str):
        return "string and substring must be str"
    if not substring:
        return "substring must not be empty"
    return None


def generate(rng, size):
    alphabet = rng.choice(("a", "ab", "abc", gen.LOWER + " "))
    string = gen.text(rng, size, alphabet)
    r = rng.random()
    if string and r < 0.4:
        i = rng.randrange(len(string))
        sub = string[i:i + rng.randint(1, 4)]
    elif r < 0.5:
        sub = string + rng.choice(alphabet)  # longer than the string
    elif string and r < 0.55:
        sub = string
    else:
        sub = gen.text(rng, 1, alphabet, 1, 3)
    return [string, sub]
