import pytest

from ledger.tax import compute_tax, rate_for


def test_rates():
    assert rate_for("standard") == 8
    assert rate_for("books") == 0


def test_category_is_case_insensitive():
    assert rate_for("  Food ") == 5


def test_unknown_category():
    with pytest.raises(KeyError):
        rate_for("yachts")


def test_whole_cent_tax():
    assert compute_tax(10000, "standard") == 800


def test_rounds_down_below_half():
    assert compute_tax(1001, "services") == 100  # 100.1


def test_rounds_up_above_half():
    assert compute_tax(1009, "services") == 101  # 100.9


def test_books_are_exempt():
    assert compute_tax(99999, "books") == 0


def test_refund_tax_is_negative():
    assert compute_tax(-1234, "standard") == -99  # -98.72


def test_zero_amount():
    assert compute_tax(0, "food") == 0
