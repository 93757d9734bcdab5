# wrong: coincidence: compares the sums of the distinct characters' codes; e.g. same_chars('ad', 'bc') returns True, expected False
def same_chars(s0: str, s1: str):
    return sum(map(ord, set(s0))) == sum(map(ord, set(s1)))
