"""HumanEval/39 prime_fib: n is an int >= 1 (1-based: prime_fib(1) is 2)."""


def contract(n):
    if type(n) is not int:
        return "n must be an int"
    if n < 1:
        return "n must be at least 1"
    return None


def generate(rng, size):
    # The 12th prime Fibonacci number is 99194853094755497: the canonical's trial division (and most
    # candidates') cannot reach it in time, so n stays within 1..11.
    return [rng.randint(1, min(11, 3 + size // 2))]
