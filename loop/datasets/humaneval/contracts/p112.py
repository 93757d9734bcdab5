"""HumanEval/112 reverse_delete: s and c are strs of lowercase ASCII letters (either may be empty; whether a
palindrome ignores case, spaces and punctuation is a matter of taste); (s
without the characters of c, whether that is a palindrome)."""

from loop.oracles import gen

_LOWER = set(gen.LOWER)


def contract(s, c):
    if not isinstance(s, str) or not isinstance(c, str):
        return "s and c must be strs"
    if not set(s) <= _LOWER or not set(c) <= _LOWER:
        return "s and c must be lowercase ASCII letters"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LOWER, "abc", "abcde"))
    r = rng.random()
    if r < 0.4:  # a palindrome with letters of c sprinkled in
        half = gen.text(rng, size, alphabet)
        s = half + rng.choice(("", rng.choice(alphabet))) + half[::-1]
        c = gen.text(rng, 1, "vwxyz", 0, 3)
        s = "".join(ch + (rng.choice(c) if c and rng.random() < 0.3 else "") for ch in s)
        return [s, c]
    return [gen.text(rng, size, alphabet), gen.text(rng, 1, alphabet, 0, rng.randint(0, 4))]
