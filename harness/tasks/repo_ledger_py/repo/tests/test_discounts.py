import pytest

from ledger.discounts import apply_bulk, apply_coupon, bulk_percent


@pytest.mark.parametrize("qty, percent", [(1, 0), (9, 0), (10, 5), (49, 5), (50, 10), (100, 15), (1000, 15)])
def test_bulk_percent(qty, percent):
    assert bulk_percent(qty) == percent


def test_apply_bulk_rounds_in_customers_favour():
    assert apply_bulk(333, 10) == 3164  # 3330 - 166 (166.5 rounded down)


def test_apply_bulk_without_break():
    assert apply_bulk(250, 4) == 1000


def test_percent_coupon():
    assert apply_coupon(10000, "welcome10") == 9000


def test_fixed_coupon_never_negative():
    assert apply_coupon(300, "FIVEOFF") == 0


def test_no_coupon():
    assert apply_coupon(1234, None) == 1234
    assert apply_coupon(1234, "") == 1234


def test_unknown_coupon():
    with pytest.raises(ValueError):
        apply_coupon(100, "FREE")
