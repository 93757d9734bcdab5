# HumanEval/103: integer arithmetic on n + m (no floats), ties at .5 resolved to the even neighbour as the tests require
def rounded_avg(n, m):
    if n > m:
        return -1
    total = n + m            # the average of n..m is total / 2
    q, r = divmod(total, 2)
    if r and q % 2:          # exact tie: q + 0.5, round half to even
        q += 1
    return bin(q)
