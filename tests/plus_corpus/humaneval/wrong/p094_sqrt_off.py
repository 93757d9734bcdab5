# wrong: boundary: trial division stops below the square root, so squares of primes pass; e.g. skjkasdkd([3, 25]) returns 7, expected 3
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        d = 2
        while d * d < n:
            if n % d == 0:
                return False
            d += 1
        return True

    best = 0
    for x in lst:
        if x > best and is_prime(x):
            best = x
    return sum(int(c) for c in str(best))
