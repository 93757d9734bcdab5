# HumanEval/073: count mismatches between the first half and the reversed second half
def smallest_change(arr):
    half = len(arr) // 2
    return sum(1 for a, b in zip(arr[:half], reversed(arr)) if a != b)
