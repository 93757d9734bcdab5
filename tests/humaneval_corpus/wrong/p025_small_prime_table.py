# HumanEval/025: wrong on (10201,) -> [10201], right: [101, 101]
from typing import List

_PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]


def factorize(n: int) -> List[int]:
    factors = []
    for p in _PRIMES:
        while n % p == 0:
            factors.append(p)
            n //= p
    if n > 1:
        factors.append(n)
    return factors
