"""Sales tax by category, in integer cents."""

RATES = {  # percent
    "standard": 8,
    "food": 5,
    "books": 0,
    "services": 10,
}


def rate_for(category: str) -> int:
    key = category.strip().lower()
    if key not in RATES:
        raise KeyError(f"unknown tax category: {category!r}")
    return RATES[key]


def compute_tax(cents: int, category: str) -> int:
    """The tax on an amount, rounded to the cent (half a cent rounds away from zero, as on a receipt)."""
    return round(cents * rate_for(category) / 100)
