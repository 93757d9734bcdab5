# wrong: alphabet: treats the substring as a regular expression; e.g. filter_by_substring(['abc', 'a.c'], '.') returns ['abc', 'a.c'], expected ['a.c']
import re
from typing import List


def filter_by_substring(strings: List[str], substring: str) -> List[str]:
    return [s for s in strings if re.search(substring, s)]
