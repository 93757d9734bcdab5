# expect: stable_pass
# Another style than the reference: a sorted copy, indices from divmod.
def median(l: list):
    s = sorted(l)
    half, odd = divmod(len(s), 2)
    return s[half] if odd else (s[half - 1] + s[half]) / 2
