# HumanEval/149: filter even lengths, then one sort on the key (length, word)
def sorted_list_sum(lst):
    return sorted((w for w in lst if len(w) % 2 == 0), key=lambda w: (len(w), w))
