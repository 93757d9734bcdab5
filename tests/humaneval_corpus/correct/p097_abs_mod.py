# HumanEval/097: unit digit taken as abs(x) % 10, so the unit digit of -1 is 1 (not -1 % 10 == 9)
def multiply(a, b):
    return (abs(a) % 10) * (abs(b) % 10)
