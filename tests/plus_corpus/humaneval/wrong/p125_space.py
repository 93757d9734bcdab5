# wrong: alphabet: only a space counts as whitespace; e.g. split_words('a\tb') returns 1, expected ['a', 'b']
def split_words(txt):
    if ' ' in txt:
        return txt.split()
    if ',' in txt:
        return txt.split(',')
    return len([c for c in txt if c.islower() and ord(c) % 2 == 0])
