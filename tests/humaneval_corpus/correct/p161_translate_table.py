# HumanEval/161: any() to detect letters, then per-character case swap or a full reverse
def solve(s):
    if not any(ch.isalpha() for ch in s):
        return s[::-1]
    return ''.join(ch.lower() if ch.isupper() else ch.upper() if ch.islower() else ch for ch in s)
