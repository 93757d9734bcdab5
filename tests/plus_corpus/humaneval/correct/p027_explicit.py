def flip_case(string: str) -> str:
    out = []
    for ch in string:
        if ch.islower():
            out.append(ch.upper())
        elif ch.isupper():
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out)
