# HumanEval/091: wrong on ('Hi! I am here',) -> 0, right: 1
def is_bored(S):
    count = 0
    for sentence in S.split('.'):
        words = sentence.split()
        if words and words[0] == 'I':
            count += 1
    return count
