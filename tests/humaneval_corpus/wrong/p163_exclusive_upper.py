# HumanEval/163: wrong on (2, 8) -> [2, 4, 6], right: [2, 4, 6, 8]
def generate_integers(a, b):
    lower = max(2, min(a, b))
    upper = min(9, max(a, b))
    return [i for i in range(lower, upper) if i % 2 == 0]
