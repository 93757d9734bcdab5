def max_difference(test_list):
    return max(abs(a - b) for a, b in test_list)
