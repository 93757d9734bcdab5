# HumanEval/012: wrong on ([''],) -> None, right: ''
from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    best = ''
    for s in strings:
        if len(s) > len(best):
            best = s
    return best if best else None
