def smallest_num(xs):
    it = iter(xs)
    best = next(it)
    for x in it:
        if x < best:
            best = x
    return best
