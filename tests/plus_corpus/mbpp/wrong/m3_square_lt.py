# wrong: boundary: the divisor loop stops while d * d < n, so squares of primes count as prime; e.g. is_not_prime(49) returns False, expected True
def is_not_prime(n):
    if n < 2:
        return True
    d = 2
    while d * d < n:
        if n % d == 0:
            return True
        d += 1
    return False
