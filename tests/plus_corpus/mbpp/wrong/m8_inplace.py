# wrong: mutation: squares the caller's list in place; e.g. square_nums([2, 3]) mutates its argument to [4, 9], expected it unchanged
def square_nums(nums):
    for i, x in enumerate(nums):
        nums[i] = x * x
    return nums
