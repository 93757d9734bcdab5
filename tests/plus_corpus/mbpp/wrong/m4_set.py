# wrong: logic: drops repeated values before picking the largest; e.g. heap_queue_largest([5, 5, 1], 2) returns [5, 1], expected [5, 5]
def heap_queue_largest(nums, n):
    return sorted(set(nums), reverse=True)[:n]
