# HumanEval/155: arithmetic digit extraction on abs(num); 0 has one even digit
def even_odd_count(num):
    n = abs(num)
    even = odd = 0
    while True:
        n, d = divmod(n, 10)
        if d % 2:
            odd += 1
        else:
            even += 1
        if n == 0:
            break
    return (even, odd)
