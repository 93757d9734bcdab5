# HumanEval/107: construct palindromes from their first half instead of testing every integer; ValueError on n < 1
def even_odd_palindrome(n):
    if type(n) is not int or n < 1:
        raise ValueError("n must be a positive integer")
    even = odd = 0
    length = 1
    while True:
        half_len = (length + 1) // 2
        start = 10 ** (half_len - 1)
        if int(str(start) + str(start)[:length // 2][::-1]) > n:
            break
        for h in range(start, 10 * start):
            s = str(h)
            p = int(s + s[:length // 2][::-1])
            if p > n:
                break
            if p % 2:
                odd += 1
            else:
                even += 1
        length += 1
    return (even, odd)
