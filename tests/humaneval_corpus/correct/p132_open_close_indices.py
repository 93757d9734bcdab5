# HumanEval/132: two open brackets followed later by two close brackets form a nested subsequence '[[]]'
def is_nested(string):
    opens = 0
    first_two_open_at = None
    for i, ch in enumerate(string):
        if ch == '[':
            opens += 1
            if opens == 2:
                first_two_open_at = i
                break
    if first_two_open_at is None:
        return False
    closes = sum(1 for ch in string[first_two_open_at + 1:] if ch == ']')
    return closes >= 2
