# HumanEval/056: explicit stack of open brackets; ValueError on characters other than '<' and '>'
def correct_bracketing(brackets: str):
    stack = []
    for ch in brackets:
        if ch == '<':
            stack.append(ch)
        elif ch == '>':
            if not stack:
                return False
            stack.pop()
        else:
            raise ValueError("brackets may contain only '<' and '>', got %r" % ch)
    return not stack
