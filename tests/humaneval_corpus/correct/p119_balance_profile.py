# HumanEval/119: each string summarised as (net balance, minimum prefix balance); try both orders without concatenating
def _profile(s):
    bal = low = 0
    for ch in s:
        bal += 1 if ch == '(' else -1
        low = min(low, bal)
    return bal, low


def match_parens(lst):
    a, b = lst
    (ba, la), (bb, lb) = _profile(a), _profile(b)
    if ba + bb != 0:
        return 'No'
    if la >= 0 and ba + lb >= 0:
        return 'Yes'
    if lb >= 0 and bb + la >= 0:
        return 'Yes'
    return 'No'
