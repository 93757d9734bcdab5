from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    return list(filter(lambda s: s.find(substring) != -1, strings))
