# HumanEval/097: unit digit read as the last character of str(x) (the sign is never the last character)
def multiply(a, b):
    return int(str(a)[-1]) * int(str(b)[-1])
