def remove_Occ(s, ch):
    i = s.find(ch)
    if i == -1:
        return s
    s = s[:i] + s[i + 1:]
    j = s.rfind(ch)
    if j == -1:
        return s
    return s[:j] + s[j + 1:]
