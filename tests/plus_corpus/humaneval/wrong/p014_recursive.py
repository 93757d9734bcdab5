# wrong: long_input: recursion one level per character; e.g. all_prefixes('a' * 3000) raises RecursionError, expected 3000 prefixes
from typing import List


def all_prefixes(string: str) -> List[str]:
    if not string:
        return []
    return all_prefixes(string[:-1]) + [string]
