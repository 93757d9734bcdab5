"""HumanEval/122 add_elements: arr is a list of 1..100 ints, k an int with 1 <= k <= len(arr); the sum of
the elements of arr[:k] with at most two decimal digits (|v| <= 99; a minus sign is not a digit)."""

from loop.oracles import gen


def contract(arr, k):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    if not 1 <= len(arr) <= 100:
        return "arr must have 1..100 elements"
    if type(k) is not int or not 1 <= k <= len(arr):
        return "k must be an int in 1..len(arr)"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.5:
        arr = gen.int_list(rng, size, -150, 150, min_len=1, max_len=100)
    elif r < 0.7:
        arr = [rng.choice((-100, -99, -10, -9, -1, 0, 1, 9, 10, 99, 100)) for _ in range(gen.length(rng, size, 1, 100))]
    else:
        arr = gen.int_list(rng, size, min_len=1, max_len=100)
    k = rng.choice((1, len(arr))) if rng.random() < 0.3 else rng.randint(1, len(arr))
    return [arr, k]


CANONICAL = """\
    # add_elements([-10], 1): "the sum of the elements with at most two digits"; -10 has two digits, but the
    # canonical's len(str(elem)) counts the minus sign and leaves it out.
    return sum(elem for elem in arr[:k] if -99 <= elem <= 99)
"""
FIXES = [(([-10], 1), -10), (([-99, 5, 100], 3), -94), (([1, -50, 7], 2), -49)]
