# HumanEval/029: wrong on (['axxx'], 'xxx') -> ['axxx'], right: []
from typing import List


def filter_by_prefix(strings: List[str], prefix: str) -> List[str]:
    return [s for s in strings if prefix in s]
