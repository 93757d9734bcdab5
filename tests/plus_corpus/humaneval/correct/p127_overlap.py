def intersection(interval1, interval2):
    lo = max(interval1[0], interval2[0])
    hi = min(interval1[1], interval2[1])
    length = hi - lo
    if length < 2:
        return "NO"
    d = 2
    while d * d <= length:
        if length % d == 0:
            return "NO"
        d += 1
    return "YES"
