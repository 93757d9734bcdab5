from collections import Counter


def count_Substrings(s):
    # sum(s[i:j]) == j - i  <=>  prefix(j) - j == prefix(i) - i
    seen = Counter({0: 1})
    total = count = 0
    for j, c in enumerate(s, 1):
        total += int(c)
        count += seen[total - j]
        seen[total - j] += 1
    return count
