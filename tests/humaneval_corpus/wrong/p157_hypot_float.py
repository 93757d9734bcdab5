# HumanEval/157: wrong on (1000000000, 1, 1000000000) -> True, right: False
import math


def right_angle_triangle(a, b, c):
    a, b, c = sorted([a, b, c])
    return math.hypot(a, b) == c
