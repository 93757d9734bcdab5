"""HumanEval/114 minSubArraySum: nums is a non-empty list of int; the minimum sum of a non-empty contiguous
sub-array."""

from loop.oracles import gen


def contract(nums):
    if not isinstance(nums, list) or not all(type(v) is int for v in nums):
        return "nums must be a list of int"
    if not nums:
        return "nums must be non-empty"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.3:
        return [gen.int_list(rng, size, -10, 10, min_len=1)]
    if r < 0.45:
        return [gen.int_list(rng, size, 0, min_len=1)]
    if r < 0.55:
        return [gen.int_list(rng, size, None, 0, min_len=1)]
    return [gen.int_list(rng, size, min_len=1)]
