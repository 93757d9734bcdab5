# HumanEval/069: sort descending and walk run lengths, returning the first value whose run length >= value
def search(lst):
    s = sorted(lst, reverse=True)
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        if s[i] > 0 and j - i >= s[i]:
            return s[i]
        i = j
    return -1
