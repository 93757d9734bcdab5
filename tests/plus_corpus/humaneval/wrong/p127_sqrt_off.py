# wrong: boundary: the primality loop stops one short of the square root; e.g. intersection((0, 4), (0, 4)) returns 'YES', expected 'NO'
def intersection(interval1, interval2):
    start = max(interval1[0], interval2[0])
    end = min(interval1[1], interval2[1])
    length = end - start
    if length < 2:
        return "NO"
    for d in range(2, int(length ** 0.5)):
        if length % d == 0:
            return "NO"
    return "YES"
