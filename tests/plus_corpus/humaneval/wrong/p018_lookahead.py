# wrong: alphabet: builds a regex from the substring without escaping it; e.g. how_many_times('abc', '.') returns 3, expected 0
import re


def how_many_times(string: str, substring: str) -> int:
    return len(re.findall('(?=' + substring + ')', string))
