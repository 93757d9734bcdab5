# HumanEval/096: sieve of Eratosthenes over [0, n); ValueError on negative n
def count_up_to(n):
    if type(n) is not int or n < 0:
        raise ValueError("n must be a non-negative integer")
    if n < 3:
        return []
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    i = 2
    while i * i < n:
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
        i += 1
    return [i for i in range(n) if sieve[i]]
