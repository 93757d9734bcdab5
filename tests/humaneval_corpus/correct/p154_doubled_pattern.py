# HumanEval/154: every rotation of b is a length-len(b) window of b+b; test each window as a substring of a
def cycpattern_check(a, b):
    if b == '':
        return True
    doubled = b + b
    return any(doubled[i:i + len(b)] in a for i in range(len(b)))
