# HumanEval/099: wrong on ('2.50',) -> 2, right: 3
def closest_integer(value):
    if value.endswith('.5'):
        num = float(value)
        return int(num + 0.5) if num > 0 else int(num - 0.5)
    return int(round(float(value)))
