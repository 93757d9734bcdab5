# HumanEval/084: arithmetic digit sum with divmod, manual binary conversion; ValueError on negative N
def solve(N):
    if type(N) is not int or N < 0:
        raise ValueError("N must be a non-negative integer (0 <= N)")
    total = 0
    while N:
        N, d = divmod(N, 10)
        total += d
    if total == 0:
        return '0'
    bits = []
    while total:
        total, b = divmod(total, 2)
        bits.append(str(b))
    return ''.join(reversed(bits))
