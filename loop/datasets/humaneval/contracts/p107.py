"""HumanEval/107 even_odd_palindrome: n is an int with 1 <= n <= 1000; (number of even, number of odd)
palindromes in 1..n."""

from loop.oracles import gen


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if not 1 <= n <= 1000:
        return "n must be in 1..1000"
    return None


def generate(rng, size):
    if rng.random() < 0.25:
        return [rng.choice((1, 2, 9, 10, 11, 12, 99, 100, 101, 111, 121, 999, 1000))]
    return [gen.integer(rng, size, 1, 1000)]
