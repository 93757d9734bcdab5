# HumanEval/080: sliding windows via zip of three shifted views, distinctness via set size
def is_happy(s):
    if len(s) < 3:
        return False
    return all(len({a, b, c}) == 3 for a, b, c in zip(s, s[1:], s[2:]))
