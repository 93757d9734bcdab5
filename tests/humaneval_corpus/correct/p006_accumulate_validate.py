# HumanEval/006: depth via itertools.accumulate per whitespace-split group, ValueError on unbalanced groups
from itertools import accumulate
from typing import List


def parse_nested_parens(paren_string: str) -> List[int]:
    if not isinstance(paren_string, str):
        raise ValueError("paren_string must be a str")
    result = []
    for group in paren_string.split():
        if set(group) - {'(', ')'}:
            raise ValueError("group %r has characters other than parentheses" % group)
        levels = list(accumulate(1 if c == '(' else -1 for c in group))
        if min(levels) < 0 or levels[-1] != 0:
            raise ValueError("group %r is not balanced" % group)
        result.append(max(levels))
    return result
