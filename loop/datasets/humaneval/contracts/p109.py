"""HumanEval/109 move_one_ball: arr is a list of distinct ints (may be empty); True exactly when some number
of right rotations sorts it ascending."""

from loop.oracles import gen


def contract(arr):
    if not isinstance(arr, list) or not all(type(v) is int for v in arr):
        return "arr must be a list of int"
    if len(set(arr)) != len(arr):
        return "the elements must be unique"
    return None


def generate(rng, size):
    arr = gen.int_list(rng, size, unique=True)
    r = rng.random()
    if arr and r < 0.5:
        arr.sort()
        k = rng.randrange(len(arr))
        arr = arr[k:] + arr[:k]
        if r < 0.2 and len(arr) > 2:  # one swap: usually no longer a rotation of the sorted list
            i, j = rng.sample(range(len(arr)), 2)
            arr[i], arr[j] = arr[j], arr[i]
    return [arr]
