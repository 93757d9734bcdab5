# HumanEval/057: wrong on ([1, 1, 2],) -> False, right: True
def monotonic(l: list):
    if len(l) < 2:
        return True
    increasing = l[1] > l[0]
    for i in range(1, len(l)):
        if increasing and l[i] < l[i - 1]:
            return False
        if not increasing and l[i] > l[i - 1]:
            return False
    return True
