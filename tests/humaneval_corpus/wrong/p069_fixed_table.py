# HumanEval/069: wrong on ([11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11],) -> raises IndexError, right: 11
def search(lst):
    freq = [0] * 11
    for x in lst:
        freq[x] += 1
    ans = -1
    for v in range(1, 11):
        if freq[v] >= v:
            ans = v
    return ans
