"""HumanEval/50 decode_shift: s is an output of encode_shift on lowercase letters, i.e. a str of lowercase
ASCII letters (may be empty)."""

from loop.oracles import gen


def contract(s):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(s, str):
        return "s must be a str"
    if any(c not in gen.LOWER for c in s):
        return "s must be lowercase letters (encode_shift's output)"
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.text(rng, size, gen.LOWER)]
