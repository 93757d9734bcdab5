"""HumanEval/124 valid_date: date is a str of ASCII letters, digits, '-', '/' and '.' (may be empty; no spaces, '+' or '_', which int() reads inside 'mm')."""

# date is any str of ASCII letters, digits and '-', '/', '.' (may be empty); True exactly when it is mm-dd-yyyy
# (2, 2 and 4 digits) with month 1..12 and the day in range for the month (29 for February, whatever the year).

import string

_ALLOWED = set(string.ascii_letters + string.digits + "-/.")
_DAYS = {1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}


def contract(date):
    if not isinstance(date, str):
        return "date must be a str"
    if not set(date) <= _ALLOWED:
        return "only ASCII letters, digits and - / . (no whitespace, signs or other characters)"
    return None


def _two(rng, lo, hi):
    return "%02d" % rng.randint(lo, hi)


def generate(rng, size):
    r = rng.random()
    year = "%04d" % rng.choice((rng.randint(1900, 2100), rng.randint(0, 9999)))
    if r < 0.4:  # valid
        m = rng.randint(1, 12)
        d = rng.choice((1, _DAYS[m], _DAYS[m] - 1, rng.randint(1, _DAYS[m])))
        return ["%02d-%02d-%s" % (m, d, year)]
    if r < 0.6:  # well formed, a field out of range
        m = rng.randint(1, 12)
        k = rng.random()
        if k < 0.4:
            return ["%02d-%02d-%s" % (m, _DAYS[m] + rng.randint(1, 3 if _DAYS[m] < 31 else 68), year)]
        if k < 0.6:
            return ["%02d-00-%s" % (m, year)]
        if k < 0.8:
            return ["00-%02d-%s" % (rng.randint(1, 31), year)]
        return ["%02d-%02d-%s" % (rng.randint(13, 99), rng.randint(1, 31), year)]
    if r < 0.85:  # malformed: wrong widths, separators, order, extra fields
        m, d = rng.randint(1, 12), rng.randint(1, 28)
        y = rng.randint(1, 9999)
        return [rng.choice((
            "%d-%02d-%04d" % (m, d, y), "%02d-%d-%04d" % (m, d, y), "%02d-%02d-%d" % (m, d, y % 1000),
            "%03d-%02d-%04d" % (m, d, y), "%02d-%03d-%04d" % (m, d, y), "%02d-%02d-%05d" % (m, d, y),
            "%02d/%02d/%04d" % (m, d, y), "%02d.%02d.%04d" % (m, d, y), "%02d-%02d/%04d" % (m, d, y),
            "%04d-%02d-%02d" % (y, m, d), "%02d%02d%04d" % (m, d, y), "%02d-%04d" % (m, y),
            "%02d-%02d-%04d-" % (m, d, y), "-%02d-%02d-%04d" % (m, d, y), "%02d--%02d-%04d" % (m, d, y),
            "%02d-%02d-%04d-%02d" % (m, d, y, d), "%02d-%02d--%03d" % (m, d, y % 1000), "", "-", "--",
            "%02d-%02d-" % (m, d), "-%02d-%04d" % (d, y), "ab-cd-efgh", "%02d-%02d-%04da" % (m, d, y),
            "%02d-0x-%04d" % (m, y), "Jan-%02d-%04d" % (d, y)))]
    # random text over the alphabet
    alphabet = rng.choice(("0123456789-", "0123456789-/", string.ascii_letters + string.digits + "-/."))
    n = rng.randint(0, 8 * size)
    return ["".join(rng.choice(alphabet) for _ in range(n))]


CANONICAL = """\
    # valid_date('01-31-2000'): "not less than 1 or higher than 31 days for months 1,3,5,7,8,10,12", but
    # the canonical's `and`/`or` precedence rejects day 31 (and 30) in every month; it also accepts
    # '04-12-200' and '4-12-2000' although "The date should be in the format: mm-dd-yyyy".
    import re
    if re.fullmatch(r"[0-9]{2}-[0-9]{2}-[0-9]{4}", date) is None:
        return False
    month, day = int(date[:2]), int(date[3:5])
    if month < 1 or month > 12:
        return False
    if month in (1, 3, 5, 7, 8, 10, 12):
        return 1 <= day <= 31
    if month in (4, 6, 9, 11):
        return 1 <= day <= 30
    return 1 <= day <= 29
"""
FIXES = [(("01-31-2000",), True), (("01-30-2000",), True), (("04-12-200",), False), (("4-12-2000",), False),
         (("04-12-02000",), False)]
