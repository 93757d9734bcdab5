# HumanEval/060: wrong on (134217729,) -> 9007199456067584, right: 9007199456067585
def sum_to_n(n: int):
    return int(n * (n + 1) / 2)
