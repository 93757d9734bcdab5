def find_Rotations(s):
    n = len(s)
    for k in range(1, n + 1):
        if s[k:] + s[:k] == s:
            return k
    return n
