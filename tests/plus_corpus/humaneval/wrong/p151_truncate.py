# wrong: corner: truncates non-integers instead of ignoring them; e.g. double_the_difference([1.5]) returns 2.25, expected 0
def double_the_difference(lst):
    return sum(x ** 2 for x in lst if x > 0 and int(x) % 2 == 1)
