"""HumanEval/1 separate_paren_groups: paren_string holds only '(', ')' and spaces; without the spaces it is a non-empty balanced sequence of one or more groups (spaces anywhere; "Separate groups are balanced")."""

from loop.oracles import gen


def _dyck(rng, pairs, p_open):
    out = []
    depth = 0
    left = pairs
    while left or depth:
        if left and (depth == 0 or rng.random() < p_open):
            out.append("(")
            depth += 1
            left -= 1
        else:
            out.append(")")
            depth -= 1
    return "".join(out)


def contract(paren_string):
    if not isinstance(paren_string, str):
        return "paren_string must be a str"
    if any(c not in "() " for c in paren_string):
        return "only '(', ')' and spaces are allowed"
    depth = 0
    for c in paren_string:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return "parentheses must be balanced"
    if depth:
        return "parentheses must be balanced"
    if "(" not in paren_string:
        return "at least one group"
    return None


def generate(rng, size):
    pairs = gen.length(rng, size, 1, 8 * size)
    p_open = rng.choice((0.2, 0.5, 0.7, 0.9))
    body = _dyck(rng, pairs, p_open)
    mode = rng.random()
    out = []
    depth = 0
    for i, c in enumerate(body):
        out.append(c)
        depth += 1 if c == "(" else -1
        if mode < 0.4:
            if depth == 0 and i + 1 < len(body):
                out.append(" ")  # one space between groups, as in the examples
        elif mode < 0.7:
            if rng.random() < 0.3:
                out.append(" " * rng.randint(1, 2))
        elif mode < 0.85:
            pass  # groups written back to back
        else:
            if depth == 0 and i + 1 < len(body):
                out.append(" ")
            elif rng.random() < 0.5:
                out.append(" ")  # '( )' style
    s = "".join(out)
    if rng.random() < 0.1:
        s = " " * rng.randint(1, 3) + s + " " * rng.randint(0, 3)
    return [s]
