def heap_queue_largest(nums: list, n: int) -> list:
    return sorted(nums, reverse=True)[:n]
