# HumanEval/100: arithmetic progression with step 2 via range; ValueError on n < 1
def make_a_pile(n):
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    return list(range(n, 3 * n, 2))
