"""HumanEval/103 rounded_avg: n and m are positive ints (either order); -1 when n > m, else bin() of the
average of n..m rounded to the nearest int, a half to the even neighbour (the tests' 964..977 -> 970)."""

from loop.oracles import gen


def contract(n, m):
    if type(n) is not int or type(m) is not int:
        return "n and m must be ints"
    if n < 1 or m < 1:
        return "n and m must be positive"
    return None


def generate(rng, size):
    n = gen.integer(rng, size, 1)
    r = rng.random()
    if r < 0.15:
        m = n
    elif r < 0.4:
        m = max(1, n + rng.randint(-3, 30))
    else:
        m = gen.integer(rng, size, 1)
    return [n, m]


CANONICAL = """\
    # rounded_avg(1, 10**10): a loop over ten billion numbers (the canonical sums n..m one by one; a
    # billion took about the 20 s limit, so a loaded machine decided whether it timed out);
    # rounded_avg(2**53 + 1, 2**53 + 1): "compute the average of the integers from n through m", which is
    # 2**53 + 1; the canonical's float division gives 2**53. Exact: the average is (n + m) / 2, a half
    # rounded to the even neighbour as round() does (the tests' 964..977 -> 970).
    if m < n:
        return -1
    s = n + m
    avg = s // 2
    if s % 2 == 1 and avg % 2 == 1:
        avg += 1
    return bin(avg)
"""
FIXES = [((1, 10 ** 10), bin(5000000000)), ((2 ** 53 + 1, 2 ** 53 + 1), bin(2 ** 53 + 1)),
         ((10 ** 17, 10 ** 17 + 2), bin(10 ** 17 + 1))]
