# HumanEval/057: collect the signs of consecutive differences; non-strict monotonic iff not both +1 and -1 occur
def monotonic(l: list):
    signs = {(b > a) - (b < a) for a, b in zip(l, l[1:])}
    return not {1, -1} <= signs
