# wrong: coincidence: every Woodall number is odd, but not every odd number is one; e.g. is_woodall(5) returns True, expected False
def is_woodall(x):
    return x % 2 == 1
