# HumanEval/088: wrong on ([2, 1, 4],) -> [1, 2, 4], right: [4, 2, 1]
def sort_array(array):
    result = sorted(array)
    if result and (result[0] + result[-1]) % 2 == 0:
        result.reverse()
    return result
