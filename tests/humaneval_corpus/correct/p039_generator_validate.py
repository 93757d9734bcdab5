# HumanEval/039: Fibonacci generator filtered by Miller-Rabin; ValueError on n < 1
_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71)


def _is_prime(n):
    if n < 2:
        return False
    for p in _BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _BASES:
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _fibs():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def prime_fib(n: int):
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    count = 0
    for f in _fibs():
        if _is_prime(f):
            count += 1
            if count == n:
                return f
