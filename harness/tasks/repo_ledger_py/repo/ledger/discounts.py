"""Discounts: bulk quantity breaks and coupon codes, applied before tax."""

BULK_BREAKS = [(100, 15), (50, 10), (10, 5)]  # (minimum quantity, percent off), largest first

COUPONS = {
    "WELCOME10": ("percent", 10),
    "FIVEOFF": ("fixed", 500),
}


def bulk_percent(quantity: int) -> int:
    for minimum, percent in BULK_BREAKS:
        if quantity >= minimum:
            return percent
    return 0


def apply_bulk(unit_cents: int, quantity: int) -> int:
    """The line amount after the bulk break (integer cents, discount rounded down in the customer's favour)."""
    gross = unit_cents * quantity
    return gross - gross * bulk_percent(quantity) // 100


def apply_coupon(subtotal: int, code: str | None) -> int:
    """The subtotal after a coupon; never below zero. Codes are case-insensitive."""
    if not code:
        return subtotal
    kind, value = COUPONS.get(code.strip().upper(), (None, 0))
    if kind is None:
        raise ValueError(f"unknown coupon: {code!r}")
    if kind == "percent":
        return subtotal - subtotal * value // 100
    return max(subtotal - value, 0)
