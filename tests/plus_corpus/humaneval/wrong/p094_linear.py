# wrong: long_input: trial division up to n itself; e.g. skjkasdkd([1000000007]) runs over 10 s, expected under 2 s
def skjkasdkd(lst):
    def is_prime(n):
        if n < 2:
            return False
        for d in range(2, n):
            if n % d == 0:
                return False
        return True

    primes = [x for x in lst if is_prime(x)]
    return sum(int(c) for c in str(max(primes))) if primes else 0
