def by_length(arr):
    names = ["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
    return [names[x - 1] for x in sorted((x for x in arr if 1 <= x <= 9), reverse=True)]
