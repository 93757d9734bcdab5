# HumanEval/143: wrong on ('abcdefghijk',) -> '', right: 'abcdefghijk'
def words_in_sentence(sentence):
    prime_lengths = {2, 3, 5, 7}
    return ' '.join(w for w in sentence.split() if len(w) in prime_lengths)
