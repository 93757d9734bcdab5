# HumanEval/146: first and last digits by arithmetic (repeated // 10), only numbers > 10 qualify
def specialFilter(nums):
    count = 0
    for x in nums:
        if x <= 10:
            continue
        last = x % 10
        first = x
        while first >= 10:
            first //= 10
        if first % 2 == 1 and last % 2 == 1:
            count += 1
    return count
