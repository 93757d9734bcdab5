# HumanEval/023: wrong on (' a',) -> 1, right: 2
def strlen(string: str) -> int:
    return len(string.strip())
