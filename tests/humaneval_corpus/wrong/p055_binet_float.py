# HumanEval/055: wrong on (71,) -> 308061521170130, right: 308061521170129
import math


def fib(n: int):
    phi = (1 + math.sqrt(5)) / 2
    psi = (1 - math.sqrt(5)) / 2
    return round((phi ** n - psi ** n) / math.sqrt(5))
