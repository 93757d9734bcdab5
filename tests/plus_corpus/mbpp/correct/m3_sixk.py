def is_not_prime(n):
    if n < 2:
        return True
    if n < 4:
        return False
    if n % 2 == 0 or n % 3 == 0:
        return True
    k = 5
    while k * k <= n:
        if n % k == 0 or n % (k + 2) == 0:
            return True
        k += 6
    return False
