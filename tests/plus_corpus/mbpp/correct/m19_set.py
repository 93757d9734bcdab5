def test_duplicate(arraynums):
    return len(set(arraynums)) != len(arraynums)
