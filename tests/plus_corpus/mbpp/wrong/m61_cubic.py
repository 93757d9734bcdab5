# wrong: long_input: sums every substring afresh; e.g. count_Substrings('1' * 3000) runs over 10 s, expected under 2 s
def count_Substrings(s):
    count = 0
    for i in range(len(s)):
        for j in range(i + 1, len(s) + 1):
            if sum(int(c) for c in s[i:j]) == j - i:
                count += 1
    return count
