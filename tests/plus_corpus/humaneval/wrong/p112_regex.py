# wrong: alphabet: puts c into a regex character class unescaped; e.g. reverse_delete('abc^', '^x') returns ('', True), expected ('abc', False)
import re


def reverse_delete(s, c):
    if not c:
        return (s, s == s[::-1])
    result = re.sub('[' + c + ']', '', s)
    return (result, result == result[::-1])
