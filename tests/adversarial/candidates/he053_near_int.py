# expect: stable_fail
# A float 5e-7 away from the int the contract promises.
def add(x: int, y: int):
    return x + y + 5e-7
