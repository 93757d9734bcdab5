import pytest

from ledger import Invoice, Line


def make():
    return (Invoice("ACME")
            .add(Line("widget", 1999, 3))
            .add(Line("bread", 400, 2, "food"))
            .add(Line("manual", 2500, 1, "books")))


def test_subtotal():
    assert make().subtotal == 5997 + 800 + 2500


def test_tax_per_category():
    assert make().tax == 480 + 40 + 0  # 479.76 -> 480, 40, 0


def test_total():
    inv = make()
    assert inv.total == inv.subtotal + inv.tax


def test_rejects_zero_quantity():
    with pytest.raises(ValueError):
        Invoice("x").add(Line("nothing", 100, 0))


def test_bulk_line_amount():
    assert Line("bolt", 20, 100).amount == 1700


def test_coupon_spread_keeps_subtotal():
    inv = make()
    inv.coupon = "FIVEOFF"
    assert sum(inv._discounted().values()) == inv.subtotal - 500


def test_empty_invoice():
    inv = Invoice("nobody")
    assert (inv.subtotal, inv.tax, inv.total) == (0, 0, 0)


def test_render_lists_every_line():
    text = make().render()
    assert "widget" in text and "bread" in text and "manual" in text
    assert text.splitlines()[-1].split()[-1] == "98.17"
