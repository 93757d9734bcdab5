"""HumanEval/36 fizz_buzz: n is any int (the integers counted are 0..n-1, as the examples read "integers less than n": none for n <= 0)."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    return None


OWN_SHARE = 1.0  # mutations of the tests' n=100000 reach n=200000, a str() per number


def generate(rng, size):
    r = rng.random()
    if r < 0.05:
        return [-rng.randint(1, 200)]  # no integers in 0..n-1
    if r < 0.4:
        return [rng.randint(0, 200)]
    if r < 0.6:
        return [rng.choice((77, 78, 79, 143, 170, 171, 700, 770, 771, 777, 778, 1000, 7000))]
    return [gen.integer(rng, size, 0, 10000)]  # linear in n with a str() per number: kept small
