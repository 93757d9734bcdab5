def sort_even(l: list):
    evens = sorted(l[::2])
    result = []
    for i, x in enumerate(l):
        result.append(evens[i // 2] if i % 2 == 0 else x)
    return result
