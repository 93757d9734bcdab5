"""HumanEval/145 order_by_points: nums is a list of int (may be empty)."""

# nums is a list of int (may be empty); a negative number's leading digit counts negative (the tests: -12 sums
# to -1 + 2 = 1), ties keep their original order.

from loop.oracles import gen


def contract(nums):
    if not isinstance(nums, list) or not all(type(x) is int for x in nums):
        return "nums must be a list of int"
    return None


def generate(rng, size):
    r = rng.random()
    if r < 0.4:
        return [gen.int_list(rng, size, -120, 120)]
    return [gen.int_list(rng, size)]
