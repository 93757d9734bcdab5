from ledger import Invoice, Line
from ledger.tax import compute_tax


def test_half_cent_rounds_up():
    assert compute_tax(250, "food") == 13  # 12.5


def test_half_cent_rounds_up_on_odd_cents():
    assert compute_tax(1005, "services") == 101  # 100.5


def test_refund_half_cent_rounds_away_from_zero():
    assert compute_tax(-250, "food") == -13  # -12.5


def test_invoice_tax_on_half_cent():
    inv = Invoice("ACME").add(Line("tea", 250, 1, "food"))
    assert (inv.tax, inv.total) == (13, 263)
