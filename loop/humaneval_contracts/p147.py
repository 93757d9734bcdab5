"""HumanEval/147 get_max_triples: n is a positive int (kept to n <= 100: the canonical is cubic)."""


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.6:
        return [rng.randint(1, 12)]
    return [rng.randint(1, min(100, 3 * size + 10))]
