# HumanEval/011: integer XOR with zero-padded formatting, ValueError on non-binary digits or unequal lengths
def string_xor(a: str, b: str) -> str:
    if not isinstance(a, str) or not isinstance(b, str):
        raise ValueError("inputs must be strings")
    for s in (a, b):
        if any(ch not in '01' for ch in s):
            raise ValueError("input must consist only of 1s and 0s: %r" % s)
    if len(a) != len(b):
        raise ValueError("inputs must have the same length")
    if not a:
        return ''
    return format(int(a, 2) ^ int(b, 2), '0%db' % len(a))
