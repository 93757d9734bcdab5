# HumanEval/010: wrong on ('cata',) -> 'catatac', right: 'catac'
def is_palindrome(string: str) -> bool:
    """ Test if given string is a palindrome """
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    if is_palindrome(string):
        return string
    return string + string[:-1][::-1]
