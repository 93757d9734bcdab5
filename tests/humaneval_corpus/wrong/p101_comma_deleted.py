# HumanEval/101: wrong on ('a,b',) -> ['ab'], right: ['a', 'b']
def words_string(s):
    return s.replace(',', '').split()
