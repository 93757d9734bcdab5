# HumanEval/055: iterative fast doubling over the bits of n (O(log n)); ValueError on negative or non-integer n
def fib(n: int):
    if type(n) is not int or n < 0:
        raise ValueError("n must be a non-negative integer")
    a, b = 0, 1  # F(k), F(k+1) for k = prefix of n's bits read so far
    for bit in bin(n)[2:]:
        c = a * (2 * b - a)   # F(2k)
        d = a * a + b * b     # F(2k+1)
        if bit == '1':
            a, b = d, c + d
        else:
            a, b = c, d
    return a
