# wrong: mutation: sorts the caller's list in place; e.g. maximum([3, 1, 2], 1) mutates its argument to [1, 2, 3], expected it unchanged
def maximum(arr, k):
    arr.sort()
    return arr[len(arr) - k:]
