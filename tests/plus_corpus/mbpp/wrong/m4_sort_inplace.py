# wrong: mutation: sorts the caller's list in place; e.g. heap_queue_largest([1, 3, 2], 2) mutates its argument to [3, 2, 1], expected it unchanged
def heap_queue_largest(nums, n):
    nums.sort(reverse=True)
    return nums[:n]
