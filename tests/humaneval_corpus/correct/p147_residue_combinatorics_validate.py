# HumanEval/147: residues of i*i - i + 1 mod 3 are only 0 (i = 2 mod 3) or 1, so count C(c0,3) + C(c1,3); ValueError on n < 1
from math import comb


def get_max_triples(n):
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    zeros = (n + 1) // 3          # i in 1..n with i % 3 == 2
    ones = n - zeros
    return comb(zeros, 3) + comb(ones, 3)
