def how_many_times(string: str, substring: str) -> int:
    if not substring:
        return len(string) + 1
    count = 0
    start = string.find(substring)
    while start != -1:
        count += 1
        start = string.find(substring, start + 1)
    return count
