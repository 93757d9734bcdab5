# HumanEval/061: wrong on ('(' * 1000 + ')' * 1000,) -> raises RecursionError, right: True
def correct_bracketing(brackets: str):
    def group(i):
        # brackets[i] == "(": consume a balanced group, return the index after it
        i += 1
        while i < len(brackets) and brackets[i] == "(":
            i = group(i)
            if i < 0:
                return -1
        if i < len(brackets) and brackets[i] == ")":
            return i + 1
        return -1

    i = 0
    while i < len(brackets):
        if brackets[i] != "(":
            return False
        i = group(i)
        if i < 0:
            return False
    return True
