# wrong: coincidence: compares neighbours only, which works on sorted input; e.g. test_duplicate([1, 2, 1]) returns False, expected True
def test_duplicate(arraynums):
    return any(a == b for a, b in zip(arraynums, arraynums[1:]))
