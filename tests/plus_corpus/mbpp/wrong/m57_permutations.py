# wrong: long_input: tries every permutation of the digits; e.g. find_Max_Num([1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3]) runs over 10 s, expected under 2 s
from itertools import permutations


def find_Max_Num(arr):
    return max(int(''.join(map(str, p))) for p in permutations(arr))
