"""HumanEval/6 parse_nested_parens: paren_string is one or more groups joined by single spaces (no leading or trailing space); each group is a non-empty balanced string of '(' and ')' forming one outermost pair (an unbalanced group has no depth)."""

from loop.oracles import gen


def _group_ok(g):
    if not g or any(c not in "()" for c in g):
        return False
    depth = 0
    for i, c in enumerate(g):
        depth += 1 if c == "(" else -1
        if depth < 0 or (depth == 0 and i + 1 < len(g)):
            return False
    return depth == 0


def contract(paren_string):
    if not isinstance(paren_string, str):
        return "paren_string must be a str"
    if not all(_group_ok(g) for g in paren_string.split(" ")):
        return "groups must be balanced single groups joined by single spaces"
    return None


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


def generate(rng, size):
    k = gen.length(rng, size, 1, max(1, 2 * size))
    groups = []
    for _ in range(k):
        pairs = gen.length(rng, max(1, size // 2), 0, 40)
        groups.append("(" + _dyck(rng, pairs, rng.choice((0.3, 0.6, 0.9, 1.0))) + ")")
    return [" ".join(groups)]
