# wrong: long_input: tries every n up to x without stopping once n * 2**n passes x + 1; e.g. is_woodall(1000001) runs over 10 s, expected under 2 s
def is_woodall(x):
    for n in range(1, x + 1):
        if n * 2 ** n - 1 == x:
            return True
    return False
