# HumanEval/158: min with a composite key (-distinct characters, word) picks most-unique then lexicographically first
def find_max(words):
    if not words:
        raise ValueError("words must not be empty")
    return min(words, key=lambda w: (-len(set(w)), w))
