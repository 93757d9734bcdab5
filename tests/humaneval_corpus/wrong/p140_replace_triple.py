# HumanEval/140: wrong on ('a    b',) -> 'a-_b', right: 'a-b'
def fix_spaces(text):
    return text.replace('   ', '-').replace(' ', '_')
