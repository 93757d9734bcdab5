# HumanEval/048: wrong on ('a',) -> False, right: True
def is_palindrome(text: str):
    half = len(text) // 2
    return text[:half] == text[-half:][::-1]
