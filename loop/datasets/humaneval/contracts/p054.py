"""HumanEval/54 same_chars: s0 and s1 are words: non-empty str of lowercase letters, non-ASCII ones included (gen.lowercase_letter: 'é', '中') ("two words"; whether 'a' and 'A' are the same character is a matter of taste)."""

from loop.oracles import gen


def contract(s0, s1):
    """None when the docstring allows these arguments, else a short reason."""
    for s in (s0, s1):
        if not isinstance(s, str):
            return "s0 and s1 must be str"
        if not s or not all(map(gen.lowercase_letter, s)):
            return "words must be non-empty lowercase letters"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.LOWER[: rng.randint(1, 26)]
    if rng.random() < 0.15:
        alphabet = "ae" + gen.LOWER_WIDE
    s0 = gen.text(rng, size, alphabet, lo=1)
    r = rng.random()
    if r < 0.5:
        chars = sorted(set(s0))
        n = gen.length(rng, size, lo=len(chars))
        s1 = chars + [rng.choice(chars) for _ in range(n - len(chars))]
        rng.shuffle(s1)
        s1 = "".join(s1)
        if rng.random() < 0.3:
            s1 += rng.choice(gen.LOWER)
    else:
        s1 = gen.text(rng, size, alphabet, lo=1)
    return [s0, s1] if rng.random() < 0.5 else [s1, s0]
