# HumanEval/114: Kadane's algorithm for the minimum, O(n) with exact integers
def minSubArraySum(nums):
    if not nums:
        raise ValueError("nums must be non-empty")
    best = current = nums[0]
    for x in nums[1:]:
        current = min(x, current + x)
        best = min(best, current)
    return best
