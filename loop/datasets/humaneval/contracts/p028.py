"""HumanEval/28 concatenate: strings is a list of str (may be empty)."""

from loop.oracles import gen


def contract(strings):
    if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
        return "strings must be a list of str"
    return None


def generate(rng, size):
    return [[gen.text(rng, max(1, size // 4), gen.LETTERS + " ") for _ in range(gen.length(rng, size))]]
