# HumanEval/110: feasible iff the odd elements of lst1 can each be swapped for an even element of lst2
def exchange(lst1, lst2):
    odd_in_first = sum(x % 2 for x in lst1)
    even_in_second = sum(1 - x % 2 for x in lst2)
    return "YES" if even_in_second >= odd_in_first else "NO"
