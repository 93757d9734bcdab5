# expect: stable_pass
def add(x: int, y: int):
    return sum((x, y))
