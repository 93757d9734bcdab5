# HumanEval/049: wrong on (3, 4) -> 1, right: 0
def modp(n: int, p: int):
    # reduce the exponent with Fermat's little theorem (assumes p prime)
    if p == 1:
        return 0
    return pow(2, n % (p - 1), p)
