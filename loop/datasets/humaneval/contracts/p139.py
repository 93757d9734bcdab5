"""HumanEval/139 special_factorial: n is a positive int."""

# n is a positive int (kept below a few hundred: the answer has ~n*n*log10(n)/2 digits).


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive (n > 0)"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.6:
        return [rng.randint(1, 12)]
    return [rng.randint(1, 5 + 5 * size)]
