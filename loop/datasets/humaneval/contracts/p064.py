"""HumanEval/64 vowels_count: s is a word: a non-empty str of ASCII letters (either case; "the end of the given word" is unclear once s holds punctuation or spaces)."""

from loop.oracles import gen


def contract(s):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    if not s or any(c not in gen.LETTERS for c in s):
        return "s must be a non-empty word of letters"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    alphabet = gen.pick(rng, gen.LETTERS, "aeiouyAEIOUYbcdBCD", "yY", gen.LOWER)
    s = gen.text(rng, size, alphabet, lo=1)
    if rng.random() < 0.3:
        s += rng.choice("yY")
    return [s]
