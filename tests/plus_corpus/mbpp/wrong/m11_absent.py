# wrong: corner: slices with find/rfind even when the character is absent; e.g. remove_Occ('abc', 'x') returns 'abababc', expected 'abc'
def remove_Occ(s, ch):
    i = s.find(ch)
    j = s.rfind(ch)
    if i == j and i != -1:
        return s[:i] + s[i + 1:]
    return s[:i] + s[i + 1:j] + s[j + 1:]
