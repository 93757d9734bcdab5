"""HumanEval/120 maximum: arr is a list of 1..1000 ints in -1000..1000, k an int with 0 <= k <= len(arr);
the k largest elements, ascending."""

from loop.oracles import gen

# The canonical solution sorts the caller's list (arr.sort()) and the docstring says nothing either way: a solution
# may change its argument (no arguments_agree check).
MUTATION_ALLOWED = True


def contract(arr, k):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    if not 1 <= len(arr) <= 1000:
        return "arr must have 1..1000 elements"
    if any(not -1000 <= v <= 1000 for v in arr):
        return "elements must be in -1000..1000"
    if type(k) is not int or not 0 <= k <= len(arr):
        return "k must be an int in 0..len(arr)"
    return None


def generate(rng, size):
    lo, hi = rng.choice(((-1000, 1000), (-5, 5), (-1000, -990), (0, 3)))
    arr = gen.int_list(rng, size, lo, hi, min_len=1, max_len=1000)
    r = rng.random()
    k = rng.choice((0, 1, len(arr), len(arr) - 1)) if r < 0.3 else rng.randint(0, len(arr))
    return [arr, max(0, k)]
