"""Amounts are integer cents; these convert to and from the decimal strings people type."""

import re

_AMOUNT = re.compile(r"^(-)?(\d+)(?:\.(\d{1,2}))?$")


def to_cents(text: str) -> int:
    """'12.3' -> 1230, '-0.05' -> -5, '7' -> 700. Thousands separators (',' or '_') are allowed."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    match = _AMOUNT.match(cleaned)
    if not match:
        raise ValueError(f"not an amount: {text!r}")
    sign, whole, frac = match.groups()
    cents = int(whole) * 100 + int((frac or "0").ljust(2, "0"))
    return -cents if sign else cents


def format_cents(cents: int) -> str:
    """1230 -> '12.30', -5 -> '-0.05', 123456789 -> '1,234,567.89'."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{frac:02d}"
