# HumanEval/064: count a/e/i/o/u case-insensitively, plus one if the word ends with y or Y
def vowels_count(s):
    lower = s.lower()
    n = sum(lower.count(v) for v in 'aeiou')
    if lower.endswith('y'):
        n += 1
    return n
