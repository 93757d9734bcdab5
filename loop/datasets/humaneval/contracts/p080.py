"""HumanEval/80 is_happy: s is a str of lowercase letters, non-ASCII ones included (gen.lowercase_letter; may be empty; "every 3 consecutive letters" leaves open whether digits, punctuation and case count)."""

from loop.oracles import gen


def contract(s):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    if not all(map(gen.lowercase_letter, s)):
        return "s must be lowercase letters"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    if r < 0.4:
        # happy by construction: each letter differs from the two before it
        alphabet = gen.LOWER[: rng.randint(3, 26)]
        out = []
        for _ in range(gen.length(rng, size)):
            out.append(rng.choice([c for c in alphabet if c not in out[-2:]]))
        if out and rng.random() < 0.3:
            i = rng.randrange(len(out))
            out[i] = rng.choice(out)  # maybe break it
        return ["".join(out)]
    alphabet = gen.pick(rng, gen.LOWER, "abc", "abcd", "ab" + gen.LOWER_WIDE)
    return [gen.text(rng, size, alphabet)]
