# wrong: long_input: compares every pair; e.g. test_duplicate(list(range(100000))) runs over 10 s, expected under 2 s
def test_duplicate(arraynums):
    n = len(arraynums)
    for i in range(n):
        for j in range(i + 1, n):
            if arraynums[i] == arraynums[j]:
                return True
    return False
