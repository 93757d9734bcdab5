# HumanEval/155: string digits of the number with the sign stripped, parity by membership in '02468'
def even_odd_count(num):
    digits = str(num).lstrip('-')
    even = sum(1 for ch in digits if ch in '02468')
    return (even, len(digits) - even)
