from functools import reduce


def find_Max_Num(arr):
    return reduce(lambda acc, d: acc * 10 + d, sorted(arr, reverse=True), 0)
