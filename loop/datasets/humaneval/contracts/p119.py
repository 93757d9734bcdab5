"""HumanEval/119 match_parens: lst is a list of two strs of '(' and ')' (either may be empty); 'Yes' exactly
when one of the two concatenations is balanced, else 'No'."""

from loop.oracles import gen


def contract(lst):
    if not isinstance(lst, list) or len(lst) != 2 or not all(isinstance(s, str) for s in lst):
        return "lst must be a list of two strs"
    if not all(set(s) <= {"(", ")"} for s in lst):
        return "the strings must hold only '(' and ')'"
    return None


def _balanced(rng, n):
    out, depth = [], 0
    while n > 0 or depth > 0:
        if depth and (n == 0 or rng.random() < 0.5):
            out.append(")")
            depth -= 1
        else:
            out.append("(")
            depth += 1
            n -= 1
    return "".join(out)


def generate(rng, size):
    r = rng.random()
    if r < 0.5:  # a balanced string cut in two, maybe swapped, maybe slightly spoiled
        s = _balanced(rng, gen.length(rng, size))
        k = rng.randint(0, len(s))
        a, b = s[:k], s[k:]
        if rng.random() < 0.5:
            a, b = b, a
        if rng.random() < 0.3 and (a or b):
            which = rng.choice([x for x in (0, 1) if (a, b)[x]])
            t = list((a, b)[which])
            i = rng.randrange(len(t))
            t[i] = "(" if t[i] == ")" else ")"
            a, b = ("".join(t), b) if which == 0 else (a, "".join(t))
        return [[a, b]]
    return [[gen.text(rng, size, "()"), gen.text(rng, size, "()")]]
