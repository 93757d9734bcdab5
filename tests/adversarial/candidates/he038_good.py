# expect: stable_pass
# Undo the cycle with slicing: each full group of three is rotated right by one.
def decode_cyclic(s: str):
    out = []
    for i in range(0, len(s), 3):
        group = s[i:i + 3]
        out.append(group[-1] + group[:-1] if len(group) == 3 else group)
    return "".join(out)
