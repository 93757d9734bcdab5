def smallest_num(xs):
    return min(xs)
