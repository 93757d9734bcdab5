"""HumanEval/95 check_dict_case: dict is a dict whose keys are non-empty strs of ASCII letters or ints (not
bool; a key without letters, '' or '_', is vacuously both lower and upper case: taste), values any; True exactly when it is non-empty and all keys are lowercase strs or all are uppercase
strs."""

from loop.oracles import gen

_LETTERS = set(gen.LETTERS)


def contract(dict):
    if not isinstance(dict, type({})):
        return "dict must be a dict"
    for k in dict:
        if type(k) is int:
            continue
        if type(k) is not str or not k or not set(k) <= _LETTERS:
            return "keys must be ints or non-empty strs of ASCII letters"
    return None


def _key(rng, case):
    n = rng.randint(1, 6)
    if case == "lower":
        return gen.text(rng, 1, gen.LOWER, n, n)
    if case == "upper":
        return gen.text(rng, 1, gen.UPPER, n, n)
    if case == "int":
        return rng.randint(-5, 20)
    return gen.text(rng, 1, gen.LETTERS, n, n)


def generate(rng, size):
    r = rng.random()
    n = gen.length(rng, size, 0, 4 * size)
    if r < 0.35:
        cases = ["lower"] * n
    elif r < 0.6:
        cases = ["upper"] * n
    else:
        cases = [rng.choice(("lower",) * 6 if r < 0.8 else ("upper",) * 6) for _ in range(n)]
        if n:  # one key that breaks the rule, anywhere (often after the second key)
            cases[rng.randrange(n)] = rng.choice(("lower", "upper", "int", "mixed"))
    d = {}
    for case in cases:
        d[_key(rng, case)] = rng.choice(("apple", "NC", "12345", "", "Banana"))
    return [d]


CANONICAL = """\
    # check_dict_case({"a": 1, "b": 2, "C": 3}): "return True if all keys are strings in lower case or all
    # keys are strings in upper case, else return False"; the canonical's loop stops after the second key
    # and returns True.
    keys = list(dict.keys())
    if not keys:
        return False
    if all(isinstance(k, str) and k.islower() for k in keys):
        return True
    return all(isinstance(k, str) and k.isupper() for k in keys)
"""
FIXES = [(({"a": 1, "b": 2, "C": 3},), False), (({"A": "x", "B": "y", 5: "z"},), False),
         (({"p": "pineapple", "b": "banana", "Name": "x"},), False)]
