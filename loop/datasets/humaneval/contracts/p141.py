"""HumanEval/141 file_name_check: file_name is any str (may be empty)."""

# file_name is any str (may be empty; non-ASCII letters and digits count as neither latin letters nor '0'-'9').

import string

from loop.oracles import gen

_NAME = string.ascii_letters + string.digits + "_-#@?/!"


def contract(file_name):
    if not isinstance(file_name, str):
        return "file_name must be a str"
    return None


def generate(rng, size):
    r = rng.random()
    ext = rng.choice(("txt", "exe", "dll")) if rng.random() < 0.75 else rng.choice(
        ("", "TXT", "Exe", "txtt", "tx", "ex e", "dll.", "wow", "doc", "txt ", " txt", "tx\u0442"))
    body = gen.text(rng, size, rng.choice((string.ascii_letters, _NAME, string.ascii_letters + "0123456789")))
    digits = rng.randint(0, 5)
    for _ in range(digits):
        i = rng.randint(0, len(body))
        body = body[:i] + rng.choice(string.digits) + body[i:]
    if r < 0.45:
        return [rng.choice(string.ascii_letters) + body + "." + ext]
    if r < 0.6:
        return [rng.choice(string.digits + "_.#@ \u00e9\u00c9\u0436\u00b2\u0661") + body + "." + ext]
    if r < 0.7:  # unicode letters or digits inside
        extra = rng.choice(("\u00e9", "\u0661\u0662\u0663\u0664", "\u00b2\u00b3", "\u0436", "\uff11\uff12"))
        i = rng.randint(0, len(body))
        return [rng.choice(string.ascii_letters) + body[:i] + extra + body[i:] + "." + ext]
    if r < 0.85:  # dot count other than one
        dots = rng.choice((0, 2, 3))
        pieces = [rng.choice(string.ascii_letters) + body]
        pieces += [gen.text(rng, 2, string.ascii_letters) for _ in range(dots)]
        s = ".".join(pieces)
        return [s + ("." + ext if rng.random() < 0.5 else "")]
    return [rng.choice(("", ".", ".txt", "a.", "..txt", "a..txt", "a.txt.", "A.dll", "z.exe"))]


CANONICAL = """\
    # file_name_check("\\u00e9.txt"): "it starts with a letter from the latin alphapet ('a'-'z' and 'A'-'Z')";
    # the canonical's isalpha() also takes other letters, and its isdigit() counts digits other than
    # "('0'-'9')" (e.g. "\\u0661" or "\\u00b2").
    suf = ['txt', 'exe', 'dll']
    lst = file_name.split('.')
    if len(lst) != 2 or lst[1] not in suf or not lst[0]:
        return 'No'
    if lst[0][0] not in 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ':
        return 'No'
    if sum(1 for ch in file_name if ch in '0123456789') > 3:
        return 'No'
    return 'Yes'
"""
FIXES = [(("\u00e9.txt",), "No"), (("\u0436abc.exe",), "No"), (("a\u0661\u0662\u0663\u0664.dll",), "Yes"),
         (("a123\u00b2.txt",), "Yes")]
