"""HumanEval/48 is_palindrome: text is a str of lowercase letters, non-ASCII ones included ('é', 'ж', '中'; may be
empty; case, spaces, punctuation and combining accents are a matter of taste the docstring does not settle)."""

from loop.oracles import gen


def contract(text):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(text, str):
        return "text must be a str"
    if not all(map(gen.lowercase_letter, text)):
        return "text must be lowercase letters"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, gen.LOWER, "ab", "ab" + gen.LOWER_WIDE)
    t = gen.text(rng, size, alphabet)
    r = rng.random()
    if r < 0.5:
        half = t[: len(t) // 2]
        mid = t[len(t) // 2: len(t) // 2 + 1] if len(t) % 2 else ""
        t = half + mid + half[::-1]
        if t and rng.random() < 0.3:
            i = rng.randrange(len(t))
            t = t[:i] + rng.choice(alphabet) + t[i + 1:]
    return [t]
