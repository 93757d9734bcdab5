# HumanEval/024: wrong on (1022117,) -> 1, right: 1013
def largest_divisor(n: int) -> int:
    for i in range(2, 1000):
        if i < n and n % i == 0:
            return n // i
    return 1
