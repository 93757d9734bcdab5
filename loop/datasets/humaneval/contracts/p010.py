"""HumanEval/10 make_palindrome: string is any str (may be empty)."""

from loop.oracles import gen


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    return None


def generate(rng, size):
    alphabet = rng.choice(("ab", "abc", gen.LOWER, gen.LETTERS + gen.DIGITS + " !", "aé中"))
    r = rng.random()
    if r < 0.3:
        # a prefix followed by a palindrome: the answer reuses the palindromic suffix
        half = gen.text(rng, size, alphabet)
        pal = half + rng.choice(("", rng.choice(alphabet))) + half[::-1]
        return [gen.text(rng, size, alphabet) + pal]
    return [gen.text(rng, size, alphabet)]
