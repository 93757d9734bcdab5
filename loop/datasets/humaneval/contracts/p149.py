"""HumanEval/149 sorted_list_sum: lst is a list of ASCII-letter words whose alphabetical order is unambiguous ('ai' vs 'AI' is taste; '' is no word)."""

# lst is a list of non-empty str of ASCII letters, duplicates allowed, where "alphabetically" is unambiguous:
# among the kept (even-length) strings, plain str order and a case-blind stable order agree (so 'AI' before 'ai'
# as in the tests, but not 'ab' vs 'BA').

import string

from loop.oracles import gen

# The canonical solution sorts the caller's list (lst.sort()) and the docstring says nothing either way: a solution
# may change its argument (no arguments_agree check).
MUTATION_ALLOWED = True


def _codepoint(lst):
    return sorted((s for s in lst if len(s) % 2 == 0), key=lambda s: (len(s), s))


def _caseless(lst):
    return sorted((s for s in lst if len(s) % 2 == 0), key=lambda s: (len(s), s.lower()))


def contract(lst):
    if not isinstance(lst, list) or not all(isinstance(s, str) for s in lst):
        return "lst must be a list of str"
    if not all(s and all(c in string.ascii_letters for c in s) for s in lst):
        return "each str is a non-empty word of ASCII letters"
    if _codepoint(lst) != _caseless(lst):
        return "mixed letter case whose alphabetical order is ambiguous"
    return None


def generate(rng, size):
    n = gen.length(rng, size)
    out = []
    for _ in range(n):
        if out and rng.random() < 0.15:
            out.append(rng.choice(out))
        else:
            k = rng.choice((1, 2, 2, 3, 4, 4, 5, 6, rng.randint(1, 12)))
            out.append("".join(rng.choice(rng.choice(("ab", "abc", string.ascii_lowercase))) for _ in range(k)))
    if rng.random() < 0.25:  # some upper case
        out = [s.upper() if rng.random() < 0.3 else s for s in out]
        if contract(out) is not None:
            out = [s.lower() for s in out]
    return [out]
