# wrong: alphabet: splits on spaces only, so punctuation stays in the words; e.g. find_char_long('hello, world!') returns ['hello,', 'world!'], expected ['hello', 'world']
def find_char_long(text):
    return [w for w in text.split() if len(w) >= 4]
