# HumanEval/124: strict mm-dd-yyyy regex plus a per-month day table (February up to 29, any 4-digit year)
import re

_MAX_DAY = {1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}
_FORMAT = re.compile(r'([0-9]{2})-([0-9]{2})-([0-9]{4})')


def valid_date(date):
    if not isinstance(date, str):
        return False
    m = _FORMAT.fullmatch(date)
    if not m:
        return False
    month, day = int(m.group(1)), int(m.group(2))
    if month not in _MAX_DAY:
        return False
    return 1 <= day <= _MAX_DAY[month]
