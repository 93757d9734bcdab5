# HumanEval/144: wrong on ('10000000000000001/10000000000000000', '1/1') -> True, right: False
def simplify(x, n):
    a, b = x.split('/')
    c, d = n.split('/')
    value = (int(a) / int(b)) * (int(c) / int(d))
    return value == int(value)
