# HumanEval/075: count prime factors with multiplicity (Omega(a) == 3, repeats allowed: 8 = 2*2*2), with cube/square-root cutoffs
def is_multiply_prime(a):
    if a < 2:
        return False
    count = 0
    p = 2
    while p * p <= a:
        need = 3 - count
        if need >= 2 and p ** need > a:
            # every remaining prime factor is >= p, so fewer than `need` of them remain
            return False
        while a % p == 0:
            a //= p
            count += 1
            if count > 3:
                return False
        p += 1 if p == 2 else 2
    if a > 1:
        count += 1
    return count == 3
