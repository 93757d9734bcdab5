# HumanEval/124: wrong on ('02-30-2000',) -> True, right: False
def valid_date(date):
    parts = date.split('-')
    if len(parts) != 3 or [len(p) for p in parts] != [2, 2, 4]:
        return False
    if not all(p.isdigit() for p in parts):
        return False
    month, day = int(parts[0]), int(parts[1])
    if month < 1 or month > 12:
        return False
    if month in (4, 6, 9, 11):
        return 1 <= day <= 30
    return 1 <= day <= 31
