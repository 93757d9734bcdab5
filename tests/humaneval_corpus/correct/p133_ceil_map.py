# HumanEval/133: map math.ceil over the list, then sum of squares
import math


def sum_squares(lst):
    return sum(v * v for v in map(math.ceil, lst))
