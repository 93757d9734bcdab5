"""HumanEval/40 triples_sum_to_zero: l is a list of int (may be empty); "three distinct elements" means three different positions (the test [1, 3, -2, 1] is True)."""

from loop.oracles import gen


def contract(l):
    if not isinstance(l, list) or not all(type(x) is int for x in l):
        return "l must be a list of int"
    return None


def generate(rng, size):
    # at most 120 elements: the canonical tries every triple
    r = rng.random()
    if r < 0.5:
        l = [rng.randint(-10, 10) for _ in range(gen.length(rng, size, 0, 120))]
    elif r < 0.65:
        l = [rng.choice((0, 0, 1, 2, 3, -1, 5)) for _ in range(gen.length(rng, size, 0, 120))]
    elif r < 0.8:
        # all positive but for one large negative: True only when two of them sum to its negation
        l = [rng.randint(1, 50) for _ in range(gen.length(rng, size, 0, 119))]
        l.insert(rng.randint(0, len(l)), -rng.randint(2, 100))
    else:
        l = gen.int_list(rng, size, max_len=120)
        if len(l) >= 2 and rng.random() < 0.5:
            l.append(-(l[0] + l[-1]))
            rng.shuffle(l)
    return [l]
