import pytest

from ledger.csvio import read_invoice, read_lines


def test_read_lines():
    lines = read_lines("widget, 19.99, 3\nbread,4,2,food\n")
    assert [(l.description, l.unit_cents, l.quantity, l.category) for l in lines] == [
        ("widget", 1999, 3, "standard"), ("bread", 400, 2, "food")]


def test_comments_and_blank_lines():
    assert len(read_lines("# header\n\nwidget,1,1\n")) == 1


def test_bad_field_count():
    with pytest.raises(ValueError, match="line 1"):
        read_lines("widget,1\n")


def test_bad_quantity():
    with pytest.raises(ValueError, match="whole number"):
        read_lines("widget,1,two\n")


def test_read_invoice_total():
    inv = read_invoice("ACME", "widget,19.99,3\nbread,4.00,2,food\nmanual,25,1,books\n")
    assert inv.total == 9297 + 520
