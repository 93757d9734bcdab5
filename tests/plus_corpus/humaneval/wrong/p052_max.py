# wrong: corner: max() of an empty list; e.g. below_threshold([], 5) raises ValueError, expected True
def below_threshold(l: list, t: int):
    return max(l) < t
