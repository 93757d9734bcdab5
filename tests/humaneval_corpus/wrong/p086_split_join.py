# HumanEval/086: wrong on ('a  b',) -> 'a b', right: 'a  b'
def anti_shuffle(s):
    return ' '.join(''.join(sorted(word)) for word in s.split())
