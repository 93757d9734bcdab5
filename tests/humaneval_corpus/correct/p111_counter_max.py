# HumanEval/111: collections.Counter then keep every letter whose count equals the maximum
from collections import Counter


def histogram(test):
    counts = Counter(test.split())
    if not counts:
        return {}
    top = max(counts.values())
    return {letter: c for letter, c in counts.items() if c == top}
