def remove_dirty_chars(string, second_string):
    dirty = set(second_string)
    return "".join(c for c in string if c not in dirty)
