# wrong: alphabet: flips only ASCII letters; e.g. flip_case('café') returns 'CAFé', expected 'CAFÉ'
def flip_case(string: str) -> str:
    out = []
    for ch in string:
        if 'a' <= ch <= 'z':
            out.append(chr(ord(ch) - 32))
        elif 'A' <= ch <= 'Z':
            out.append(chr(ord(ch) + 32))
        else:
            out.append(ch)
    return ''.join(out)
