def test_duplicate(arraynums):
    seen = set()
    for x in arraynums:
        if x in seen:
            return True
        seen.add(x)
    return False
