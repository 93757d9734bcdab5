def get_positive(l: list):
    return [x for x in l if x > 0]
