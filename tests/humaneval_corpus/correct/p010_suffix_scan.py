# HumanEval/010: scan start positions left to right, the first palindromic suffix is the longest
def is_palindrome(string: str) -> bool:
    """ Test if given string is a palindrome """
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    for start in range(len(string)):
        suffix = string[start:]
        if suffix == suffix[::-1]:
            return string + string[:start][::-1]
    return string
