# HumanEval/068: min over (value, index) tuples of even nodes; ValueError on negative node values
def pluck(arr):
    if any(v < 0 for v in arr):
        raise ValueError("node values must be non-negative")
    evens = [(v, i) for i, v in enumerate(arr) if v % 2 == 0]
    if not evens:
        return []
    v, i = min(evens)
    return [v, i]
