"""HumanEval/112 reverse_delete: s and c are strs (either may be empty), and what is left of s once c's characters are deleted is lowercase letters, non-ASCII ones included (gen.lowercase_letter; whether a palindrome ignores case, spaces and punctuation is a matter of taste); (s without the characters of c, whether that is a palindrome)."""

import string

from loop.oracles import gen

_ODD = "^]-[\\.*+?(){}|$ ,'\"Az9\t"  # deleted characters may be anything: metacharacters, a range's '-'


def contract(s, c):
    if not isinstance(s, str) or not isinstance(c, str):
        return "s and c must be strs"
    if not all(map(gen.lowercase_letter, set(s) - set(c))):
        return "what is left of s must be lowercase letters"
    return None


def generate(rng, size):
    alphabet = rng.choice((gen.LOWER, "abc", "abcde", "ab" + gen.LOWER_WIDE))
    r = rng.random()
    if r < 0.4:  # a palindrome with letters of c sprinkled in
        half = gen.text(rng, size, alphabet)
        s = half + rng.choice(("", rng.choice(alphabet))) + half[::-1]
        c = gen.text(rng, 1, rng.choice(("vwxyz", "vwxyz" + _ODD, string.punctuation)), 0, 3)
        s = "".join(ch + (rng.choice(c) if c and rng.random() < 0.3 else "") for ch in s)
        return [s, c]
    if r < 0.55:  # c holds characters s never has, some of them special to a regex or a format
        return [gen.text(rng, size, alphabet), gen.text(rng, 1, alphabet + _ODD, 1, rng.randint(1, 5))]
    return [gen.text(rng, size, alphabet), gen.text(rng, 1, alphabet, 0, rng.randint(0, 4))]
