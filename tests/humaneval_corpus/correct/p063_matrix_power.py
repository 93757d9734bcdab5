# HumanEval/063: 3x3 companion-matrix exponentiation by squaring (O(log n)); ValueError on negative n
def _mul(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def fibfib(n: int):
    if type(n) is not int or n < 0:
        raise ValueError("n must be a non-negative integer")
    if n < 3:
        return (0, 0, 1)[n]
    # [f(k+1), f(k), f(k-1)]^T = M [f(k), f(k-1), f(k-2)]^T
    M = [[1, 1, 1], [1, 0, 0], [0, 1, 0]]
    R = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    e = n - 2
    while e:
        if e & 1:
            R = _mul(R, M)
        M = _mul(M, M)
        e >>= 1
    # R applied to [f(2), f(1), f(0)] = [1, 0, 0]
    return R[0][0]
