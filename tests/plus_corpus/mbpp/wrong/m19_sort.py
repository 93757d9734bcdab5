# wrong: mutation: sorts the caller's list to compare neighbours; e.g. test_duplicate([3, 1, 2]) mutates its argument to [1, 2, 3], expected it unchanged
def test_duplicate(arraynums):
    arraynums.sort()
    for i in range(1, len(arraynums)):
        if arraynums[i] == arraynums[i - 1]:
            return True
    return False
