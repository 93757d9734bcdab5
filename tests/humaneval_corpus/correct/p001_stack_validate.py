# HumanEval/001: depth counter over characters, raises ValueError on unbalanced input or stray characters
from typing import List


def separate_paren_groups(paren_string: str) -> List[str]:
    if not isinstance(paren_string, str):
        raise ValueError("paren_string must be a str")
    groups: List[str] = []
    current: List[str] = []
    depth = 0
    for ch in paren_string:
        if ch == ' ':
            continue
        if ch == '(':
            depth += 1
            current.append(ch)
        elif ch == ')':
            if depth == 0:
                raise ValueError("unbalanced: ')' without a matching '('")
            depth -= 1
            current.append(ch)
            if depth == 0:
                groups.append(''.join(current))
                current = []
        else:
            raise ValueError("unexpected character %r" % ch)
    if depth != 0:
        raise ValueError("unbalanced: unclosed '('")
    return groups
