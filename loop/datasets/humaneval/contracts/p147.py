"""HumanEval/147 get_max_triples: n is a positive int (kept to n <= 40: the canonical is cubic, and every
repeat of every grade runs it on each input)."""


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be positive"
    return None


OWN_SHARE = 1.0  # mutations of the tests' n=100 reach n=200: 1.3 million triples a call


def generate(rng, size):
    r = rng.random()
    if r < 0.6:
        return [rng.randint(1, 12)]
    return [rng.randint(1, min(40, 3 * size + 10))]
