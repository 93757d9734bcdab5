"""HumanEval/154 cycpattern_check: a and b are non-empty words of lowercase letters, non-ASCII ones included (gen.lowercase_letter) ("2 words"; whether an empty b is in every a is taste)."""

import string

from loop.oracles import gen


def contract(a, b):
    for w in (a, b):
        if not isinstance(w, str) or not w or not all(map(gen.lowercase_letter, w)):
            return "a and b must be non-empty words of lowercase letters"
    return None


def generate(rng, size):
    alpha = rng.choice(("ab", "abc", "abcde", string.ascii_lowercase, "ab" + gen.LOWER_WIDE))
    a = gen.text(rng, size, alpha, 1)
    r = rng.random()
    if r < 0.4 and len(a) >= 1:  # a rotation of a substring of a
        i = rng.randrange(len(a))
        j = rng.randint(i + 1, len(a))
        sub = a[i:j]
        k = rng.randrange(len(sub))
        b = sub[k:] + sub[:k]
        if rng.random() < 0.3:  # perturb one letter
            p = rng.randrange(len(b))
            b = b[:p] + rng.choice(alpha) + b[p + 1:]
    else:
        b = gen.text(rng, size, alpha, 1, max(1, len(a) + 2))
    return [a, b]
