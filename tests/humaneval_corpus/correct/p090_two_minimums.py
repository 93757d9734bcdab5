# HumanEval/090: single pass tracking the smallest and the second smallest DISTINCT value
def next_smallest(lst):
    first = second = None
    for x in lst:
        if first is None or x < first:
            if first is not None:
                second = first
            first = x
        elif x != first and (second is None or x < second):
            second = x
    return second
