# wrong: coincidence: 1 if all characters are equal, else the length; e.g. find_Rotations('abab') returns 4, expected 2
def find_Rotations(s):
    return 1 if len(set(s)) == 1 else len(s)
