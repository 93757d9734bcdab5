# wrong: coincidence: removes every occurrence, which is the same when there are two; e.g. remove_Occ('aaa', 'a') returns '', expected 'a'
def remove_Occ(s, ch):
    return s.replace(ch, '')
