def find_Max_Num(arr):
    return int("".join(str(d) for d in sorted(arr, reverse=True)))
