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


def _balanced(rng, n):
    out, depth = [], 0
    for _ in range(n):
        if depth and rng.random() < 0.5:
            out.append(")")
            depth -= 1
        else:
            out.append("(")
            depth += 1
    return "".join(out) + ")" * depth


def generate(rng, size):
    """The positional arguments of one input inside the contract."""
    r = rng.random()
    n = gen.length(rng, size)
    if r < 0.45:
        s = _balanced(rng, n)
    elif r < 0.75:
        s = _balanced(rng, n)
        if s:
            i = rng.randrange(len(s))
            s = gen.pick(rng, lambda: s[:i] + s[i + 1:], lambda: s[:i] + rng.choice("()") + s[i:],
                         lambda: s[:i] + ("(" if s[i] == ")" else ")") + s[i + 1:], lambda: s[::-1])
    else:
        s = gen.text(rng, size, "()")
    return [s]
