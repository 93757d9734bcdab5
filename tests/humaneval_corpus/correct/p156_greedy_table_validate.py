# HumanEval/156: greedy subtraction over a value/symbol table including subtractive pairs; ValueError outside 1..1000
_TABLE = ((1000, 'm'), (900, 'cm'), (500, 'd'), (400, 'cd'), (100, 'c'), (90, 'xc'),
          (50, 'l'), (40, 'xl'), (10, 'x'), (9, 'ix'), (5, 'v'), (4, 'iv'), (1, 'i'))


def int_to_mini_roman(number):
    if type(number) is not int or not 1 <= number <= 1000:
        raise ValueError("number must be an integer with 1 <= number <= 1000")
    parts = []
    for value, symbol in _TABLE:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return ''.join(parts)
