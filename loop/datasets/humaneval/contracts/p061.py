"""HumanEval/61 correct_bracketing: brackets is a str of "(" and ")" only (may be empty, need not be
balanced)."""

from loop.oracles import gen


def contract(brackets):
    """None when the docstring allows these arguments, else a short reason."""
    if not isinstance(brackets, str):
        return "brackets must be a str"
    if any(c not in "()" for c in brackets):
        return 'brackets must contain only "(" and ")"'
    return None


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    return [gen.brackets(rng, size, "()")]
