# expect: stable_fail relation:arguments_agree
# The right median, but found by sorting the caller's list in place: the docstring does not allow it, and
# the reference (a sorted copy) leaves the list as it was.
def median(l: list):
    l.sort()
    n = len(l)
    return l[n // 2] if n % 2 else (l[n // 2 - 1] + l[n // 2]) / 2.0
