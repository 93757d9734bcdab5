# HumanEval/010: KMP prefix function finds the longest palindromic suffix in linear time
def is_palindrome(string: str) -> bool:
    """ Test if given string is a palindrome """
    return string == string[::-1]


def make_palindrome(string: str) -> str:
    n = len(string)
    if n == 0:
        return ''
    # sequence = reversed(string) + [sentinel] + string; the sentinel never equals a character
    seq = list(reversed(string)) + [None] + list(string)
    pi = [0] * len(seq)
    for i in range(1, len(seq)):
        k = pi[i - 1]
        while k > 0 and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    longest_pal_suffix = pi[-1]
    return string + string[:n - longest_pal_suffix][::-1]
