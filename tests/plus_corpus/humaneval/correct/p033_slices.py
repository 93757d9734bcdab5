def sort_third(l: list):
    result = list(l)
    result[::3] = sorted(l[::3])
    return result
