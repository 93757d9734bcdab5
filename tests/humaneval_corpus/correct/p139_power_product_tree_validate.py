# HumanEval/139: prod_{i<=n} i**(n+1-i) multiplied pairwise in a balanced product tree; ValueError on n <= 0
def special_factorial(n):
    if type(n) is not int or n <= 0:
        raise ValueError("n must be a positive integer (n > 0)")
    # 1! * 2! * ... * n! == 1**n * 2**(n-1) * ... * n**1
    terms = [pow(i, n + 1 - i) for i in range(2, n + 1)] or [1]
    while len(terms) > 1:
        paired = [terms[i] * terms[i + 1] for i in range(0, len(terms) - 1, 2)]
        if len(terms) % 2:
            paired.append(terms[-1])
        terms = paired
    return terms[0]
