# HumanEval/163: intersect [min(a,b), max(a,b)] with the even digits {0,2,4,6,8}; ValueError on non-positive a or b
def generate_integers(a, b):
    for v in (a, b):
        if type(v) is not int or v <= 0:
            raise ValueError("a and b must be positive integers")
    lo, hi = (a, b) if a <= b else (b, a)
    return [d for d in (0, 2, 4, 6, 8) if lo <= d <= hi]
