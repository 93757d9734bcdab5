# wrong: long_input: trial division by every number below n; e.g. is_not_prime(1000000007) runs over 10 s, expected under 2 s
def is_not_prime(n):
    if n < 2:
        return True
    for d in range(2, n):
        if n % d == 0:
            return True
    return False
