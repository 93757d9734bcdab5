# wrong: boundary: the loop stops one pair early; e.g. max_difference([(1, 2), (0, 10)]) returns 1, expected 10
def max_difference(test_list):
    best = 0
    for i in range(len(test_list) - 1):
        a, b = test_list[i]
        best = max(best, abs(a - b))
    return best
