"""HumanEval/132 is_nested: string is a str of '[' and ']' only (may be empty, need not be balanced)."""

from loop.oracles import gen


def contract(string):
    if not isinstance(string, str):
        return "string must be a str"
    if not set(string) <= {"[", "]"}:
        return "only square brackets"
    return None


def _balanced(rng, n, depth):
    out = []
    while n > 0:
        if depth > 0 and rng.random() < 0.5:
            k = rng.randint(0, n - 1)
            out.append("[" + _balanced(rng, k, depth - 1) + "]")
            n -= k + 1
        else:
            out.append("[]")
            n -= 1
    return "".join(out)


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        return [_balanced(rng, gen.length(rng, size) // 2 + rng.randint(0, 2), rng.choice((0, 1, 3, 10)))]
    if r < 0.55:  # flat pairs with stray brackets
        s = "[]" * rng.randint(0, 4 * size)
        i = rng.randint(0, len(s))
        return [s[:i] + rng.choice(("[", "]", "][", "[[", "]]", "")) + s[i:]]
    if r < 0.65:
        n = gen.length(rng, size)
        return ["]" * rng.randint(0, n) + "[" * rng.randint(0, n) + rng.choice(("", "[]", "]"))]
    return [gen.text(rng, size, "[]")]
