def remove_dirty_chars(string, second_string):
    return string.translate({ord(c): None for c in second_string})
