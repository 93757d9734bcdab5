# HumanEval/039: wrong on (11,) -> raises IndexError, right: 2971215073
_PRIME_FIBS = [2, 3, 5, 13, 89, 233, 1597, 28657, 514229, 433494437]


def prime_fib(n: int):
    return _PRIME_FIBS[n - 1]
