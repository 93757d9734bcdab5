# HumanEval/097: wrong on (-12, 3) -> 24, right: 6
def multiply(a, b):
    return (a % 10) * (b % 10)
