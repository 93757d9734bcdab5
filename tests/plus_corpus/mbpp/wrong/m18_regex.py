# wrong: alphabet: a regex character class built from the second string unescaped; e.g. remove_dirty_chars('abc-d', 'a-c') returns '-d', expected 'bd'
import re


def remove_dirty_chars(string, second_string):
    return re.sub('[' + second_string + ']', '', string)
