# HumanEval/061: running balance with early exit; ValueError on characters other than '(' and ')'
def correct_bracketing(brackets: str):
    bad = set(brackets) - {'(', ')'}
    if bad:
        raise ValueError("brackets may contain only '(' and ')', got %r" % sorted(bad))
    balance = 0
    for ch in brackets:
        balance += 1 if ch == '(' else -1
        if balance < 0:
            return False
    return balance == 0
