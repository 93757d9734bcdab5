def find_Rotations(s):
    if not s:
        return 0
    return (s + s).find(s, 1)
