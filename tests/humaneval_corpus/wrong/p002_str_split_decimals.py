# HumanEval/002: wrong on (1e-05,) -> raises IndexError, right: 1e-05
def truncate_number(number: float) -> float:
    decimals = str(number).split('.')[1]
    return float('0.' + decimals)
