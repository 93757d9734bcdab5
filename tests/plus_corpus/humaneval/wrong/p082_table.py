# wrong: coincidence: a table of the primes up to 13 covers every visible length; e.g. prime_length('a' * 17) returns False, expected True
def prime_length(string):
    return len(string) in (2, 3, 5, 7, 11, 13)
