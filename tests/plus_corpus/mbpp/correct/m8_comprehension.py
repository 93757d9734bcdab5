def square_nums(nums):
    return [x * x for x in nums]
